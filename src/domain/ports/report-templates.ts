/** The templates of agentdevel's own reports, shipped with it. */
export type ReportTemplateName = 'flip-report';

/**
 * Renders one of agentdevel's report templates with a view (adapters/template: Handlebars, the
 * template files read once). The view's text is escaped for its format before it gets here.
 */
export type ReportTemplates = (name: ReportTemplateName, view: Readonly<Record<string, unknown>>) => string;
