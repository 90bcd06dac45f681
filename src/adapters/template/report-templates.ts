import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ReportTemplates, ReportTemplateName } from '../../domain/ports/report-templates.ts';
import { renderTemplate } from './handlebars.ts';

/** Report templates ship with agentdevel; they are read once, when first used. */
const cache = new Map<string, string>();

export function reportTemplate(name: ReportTemplateName): string {
  let source = cache.get(name);
  if (source === undefined) {
    source = readFileSync(fileURLToPath(new URL(`./templates/${name}.md.hbs`, import.meta.url)), 'utf8');
    cache.set(name, source);
  }
  return source;
}

/** The ReportTemplates port: a report template rendered with its view. */
export const renderReportTemplate: ReportTemplates = (name, view) => renderTemplate(reportTemplate(name), view);
