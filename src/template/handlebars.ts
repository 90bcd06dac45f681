// The one module that imports handlebars (house rule 6). Each render gets its own isolated
// Handlebars environment so partials and helpers of one blueprint never leak into another.
import Handlebars from 'handlebars';

export interface TemplateSet {
  readonly main: string;
  readonly partials: Readonly<Record<string, string>>;
}

export type Render = (context: unknown) => string;

export class TemplateError extends Error {
  constructor(
    readonly template: string,
    message: string,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

/**
 * Compiles a template and its partials eagerly, so a syntax error surfaces when the blueprint
 * loads rather than in the middle of a run.
 */
export function compileTemplates(set: TemplateSet, mainName: string): Render {
  const env = Handlebars.create();
  env.registerHelper('json', (value: unknown) => new env.SafeString(JSON.stringify(value, null, 2)));
  for (const [name, source] of Object.entries(set.partials)) {
    try {
      env.precompile(source);
    } catch (error) {
      throw new TemplateError(name, (error as Error).message.split('\n')[0] ?? 'invalid template');
    }
    env.registerPartial(name, source);
  }
  let render: HandlebarsTemplateDelegate;
  try {
    env.precompile(set.main);
    render = env.compile(set.main, { strict: false, noEscape: true });
  } catch (error) {
    throw new TemplateError(mainName, (error as Error).message.split('\n')[0] ?? 'invalid template');
  }
  return (context) => render(context);
}

/** Renders a report template (HTML-escaping off: reports are Markdown). */
export function renderTemplate(source: string, context: unknown): string {
  return compileTemplates({ main: source, partials: {} }, 'report')(context);
}
