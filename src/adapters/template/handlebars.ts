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
    /** The template at fault: the main template's name, or a partial's name. */
    readonly template: string,
    message: string,
    readonly line: number | null = null,
    /** The cause: Handlebars' own error. */
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'TemplateError';
  }
}

type Node = hbs.AST.Node & Partial<{
  body: Node[];
  program: Node | null;
  inverse: Node | null;
  name: hbs.AST.PathExpression | hbs.AST.SubExpression | hbs.AST.StringLiteral;
  path: hbs.AST.PathExpression;
  params: Array<{ type: string; value?: unknown }>;
}>;

function parse(source: string, template: string): hbs.AST.Program {
  try {
    return Handlebars.parse(source);
  } catch (error) {
    const message = (error as Error).message;
    const line = /on line (\d+)/.exec(message)?.[1] ?? (error as { lineNumber?: number }).lineNumber;
    // "Parse error on line 3:\n<excerpt>\n---^\nExpecting 'X', got 'EOF'": the line goes with the
    // file name, the excerpt is noise, the expectation is the news.
    const lines = message.split('\n').filter((l) => l.trim() !== '');
    const what = /^Parse error/.test(lines[0] ?? '') ? `parse error: ${lines.at(-1) ?? ''}` : (lines[0] ?? 'invalid template');
    throw new TemplateError(template, what, line === undefined ? null : Number(line), { cause: error });
  }
}

function walk(node: Node | null | undefined, visit: (node: Node) => void): void {
  if (!node) return;
  visit(node);
  for (const child of node.body ?? []) walk(child, visit);
  walk(node.program, visit);
  walk(node.inverse, visit);
}

/** The name a partial statement asks for, when it is written out (not computed at render time). */
function staticPartialName(node: Node): string | null {
  const name = node.name;
  if (!name) return null;
  if (name.type === 'PathExpression') return (name as hbs.AST.PathExpression).data ? null : (name as hbs.AST.PathExpression).original;
  if (name.type === 'StringLiteral') return String((name as hbs.AST.StringLiteral).value);
  return null;
}

/**
 * Checks, without rendering, that every partial a template asks for by name exists: one
 * missing partial is an error naming the template and the line. (A partial block,
 * `{{#> name}}fallback{{/name}}`, may name a missing partial: it renders its fallback.)
 */
function checkPartials(templates: ReadonlyMap<string, hbs.AST.Program>, known: ReadonlySet<string>): void {
  const inline = new Set<string>();
  for (const program of templates.values()) {
    walk(program as Node, (node) => {
      if (node.type === 'DecoratorBlock' && node.path?.original === 'inline' && node.params?.[0]?.type === 'StringLiteral') {
        inline.add(String(node.params[0].value));
      }
    });
  }
  for (const [template, program] of templates) {
    walk(program as Node, (node) => {
      if (node.type !== 'PartialStatement') return;
      const name = staticPartialName(node);
      if (name === null || known.has(name) || inline.has(name)) return;
      const available = [...known].sort();
      throw new TemplateError(
        template,
        `the partial "${name}" does not exist (partials are the blueprint's other .hbs files, named by their path without .hbs: ${available.length > 0 ? available.join(', ') : 'there are none'})`,
        node.loc?.start.line ?? null,
      );
    });
  }
}

/**
 * Checks a set of templates that some other program renders (a command agent's): each parses
 * and compiles, and every partial one names is another template of the set.
 */
export function checkTemplateSet(templates: ReadonlyMap<string, string>): void {
  const programs = new Map<string, hbs.AST.Program>();
  for (const [name, source] of templates) programs.set(name, parse(source, name));
  checkPartials(programs, new Set(templates.keys()));
  const env = Handlebars.create();
  for (const [name, source] of templates) {
    try {
      env.precompile(source);
    } catch (error) {
      throw new TemplateError(name, (error as Error).message.split('\n')[0] ?? 'invalid template', null, { cause: error });
    }
  }
}

/**
 * Compiles a template and its partials eagerly, so a syntax error or a missing partial surfaces
 * when the blueprint loads rather than in the middle of a run. Rendering errors (a missing
 * helper, a partial whose name is computed) are TemplateErrors of the main template.
 */
export function compileTemplates(set: TemplateSet, mainName: string): Render {
  const env = Handlebars.create();
  env.registerHelper('json', (value: unknown) => new env.SafeString(JSON.stringify(value, null, 2)));
  const programs = new Map<string, hbs.AST.Program>();
  for (const [name, source] of Object.entries(set.partials)) {
    programs.set(name, parse(source, name));
    env.registerPartial(name, source);
  }
  programs.set(mainName, parse(set.main, mainName));
  checkPartials(programs, new Set(Object.keys(set.partials)));
  let render: HandlebarsTemplateDelegate;
  try {
    env.precompile(set.main);
    render = env.compile(set.main, { strict: false, noEscape: true });
  } catch (error) {
    throw new TemplateError(mainName, (error as Error).message.split('\n')[0] ?? 'invalid template', null, { cause: error });
  }
  return (context) => {
    try {
      return render(context);
    } catch (error) {
      if (!(error instanceof Handlebars.Exception)) throw error;
      const line = (error as { lineNumber?: number }).lineNumber;
      throw new TemplateError(mainName, error.message.split('\n')[0] ?? 'cannot be rendered', line ?? null, { cause: error });
    }
  };
}

/** Renders a report template (HTML-escaping off: reports are Markdown). */
export function renderTemplate(source: string, context: unknown): string {
  return compileTemplates({ main: source, partials: {} }, 'report')(context);
}
