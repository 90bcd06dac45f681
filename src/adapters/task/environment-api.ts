// The task environment's API as the synthesizer reads it: the methods a tool wrapper can call
// on ctx.env, with their TypeScript signatures and the types those mention. The method list
// comes from the live `api` object (what wrappers really get); the signatures come from the
// module's source text, since types do not survive to run time.

export interface SourceFile {
  readonly file: string;
  readonly text: string;
}

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/** Index just past the bracket that closes the one at `start`. */
function closing(text: string, start: number): number {
  const stack: string[] = [];
  for (let i = start; i < text.length; i += 1) {
    const c = text[i] as string;
    if (c === '=' && text[i + 1] === '>') {
      i += 1;
      continue;
    }
    if (OPENERS[c]) stack.push(OPENERS[c] as string);
    else if (c === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return i + 1;
    }
  }
  return text.length;
}

/** The return type after a parameter list, up to the body (`{` after the type, or `=>`). */
function returnType(text: string, from: number): string {
  let i = from;
  while (/\s/.test(text[i] ?? '')) i += 1;
  if (text[i] !== ':') return '';
  i += 1;
  let type = '';
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '=' && text[i + 1] === '>') break;
    if (c === ';' || c === ',') break;
    if (c === '{' || c === '<' || c === '(' || c === '[') {
      const last = type.trimEnd().at(-1);
      // A brace after a complete type opens the body; after ":", "|", "&", "<", "," or "(" it is an object type.
      if (c === '{' && last !== undefined && !':|&<,(='.includes(last)) break;
      const end = closing(text, i);
      type += text.slice(i, end);
      i = end;
      continue;
    }
    type += c;
    i += 1;
  }
  return type.trim();
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').replace(/\(\s+/g, '(').replace(/,?\s*\)/g, ')').trim();

/** `name(params): Return` from the first declaration of a method named `name` in the sources. */
export function sourceSignature(name: string, sources: readonly SourceFile[]): string | null {
  const escaped = name.replace(/[$]/g, '\\$');
  const declaration = new RegExp(`^[ \\t]*(?:public[ \\t]+|static[ \\t]+)?(?:async[ \\t]+)?${escaped}[ \\t]*(?::[ \\t]*(?:async[ \\t]*)?(?:function[ \\t]*)?)?(<[^>\\n]*>)?[ \\t]*\\(`, 'm');
  for (const source of sources) {
    const match = declaration.exec(source.text);
    if (!match) continue;
    const open = match.index + match[0].length - 1;
    const close = closing(source.text, open);
    const params = source.text.slice(open, close);
    const result = returnType(source.text, close);
    return squash(`${name}${match[1] ?? ''}${params}${result ? `: ${result}` : ''}`);
  }
  return null;
}

/** `name(params)` from the compiled function itself, when the source has no declaration. */
function runtimeSignature(name: string, fn: (...args: unknown[]) => unknown): string {
  const text = Function.prototype.toString.call(fn);
  const open = text.indexOf('(');
  const arrow = text.indexOf('=>');
  if (open < 0 || (arrow >= 0 && arrow < open)) return `${name}(${text.slice(0, Math.max(0, arrow)).replace(/^async\s+/, '').trim()})`;
  return `${name}${squash(text.slice(open, closing(text, open)))}`;
}

/** The names of the type declarations (interface, type, class, enum) in the sources. */
function declarations(sources: readonly SourceFile[]): Map<string, string> {
  const found = new Map<string, string>();
  const head = /^(?:export[ \t]+)?(?:declare[ \t]+)?(interface|type|enum)[ \t]+([A-Za-z_$][\w$]*)/gm;
  for (const source of sources) {
    for (const match of source.text.matchAll(head)) {
      const name = match[2] as string;
      if (found.has(name)) continue;
      const start = match.index;
      let end: number;
      if (match[1] === 'type') {
        const rest = source.text.slice(start);
        const stop = /;[ \t]*(\n|$)/.exec(rest);
        end = start + (stop ? stop.index + 1 : rest.indexOf('\n') < 0 ? rest.length : rest.indexOf('\n'));
      } else {
        const brace = source.text.indexOf('{', start);
        end = brace < 0 ? start + match[0].length : closing(source.text, brace);
      }
      found.set(name, source.text.slice(start, end).trim());
    }
  }
  return found;
}

/** The declarations the signatures mention, and those they mention in turn, in order of first mention. */
function referencedTypes(signatures: readonly string[], sources: readonly SourceFile[]): string[] {
  const known = declarations(sources);
  const wanted: string[] = [];
  const visit = (text: string) => {
    for (const [word] of text.matchAll(/\b[A-Z][\w$]*\b/g)) {
      if (!known.has(word) || wanted.includes(word)) continue;
      wanted.push(word);
      visit(known.get(word) as string);
    }
  };
  for (const signature of signatures) visit(signature);
  return wanted.map((name) => known.get(name) as string);
}

/** Every method (and plain property) the api object offers, own and inherited, in declaration order. */
function members(api: object): Array<{ name: string; value: unknown }> {
  const seen = new Set<string>();
  const list: Array<{ name: string; value: unknown }> = [];
  for (let target: object | null = api; target && target !== Object.prototype; target = Object.getPrototypeOf(target) as object | null) {
    for (const name of Object.getOwnPropertyNames(target)) {
      if (name === 'constructor' || seen.has(name)) continue;
      seen.add(name);
      list.push({ name, value: (api as Record<string, unknown>)[name] });
    }
  }
  return list;
}

/** The text the synthesizer reads under <environment_api>. */
export function describeEnvironmentApi(api: object, sources: readonly SourceFile[]): string {
  const lines: string[] = [];
  const signatures: string[] = [];
  for (const { name, value } of members(api)) {
    if (typeof value === 'function') {
      const signature = sourceSignature(name, sources) ?? runtimeSignature(name, value as (...args: unknown[]) => unknown);
      signatures.push(signature);
      lines.push(`- ctx.env.${signature}`);
    } else {
      lines.push(`- ctx.env.${name}: ${value === null ? 'null' : typeof value}`);
    }
  }
  if (lines.length === 0) return 'ctx.env has no methods.';
  const types = referencedTypes(signatures, sources);
  return [
    'Methods (a method that throws fails the tool call, and the agent sees the error message):',
    ...lines,
    ...(types.length > 0 ? ['', 'Types these signatures use:', ...types] : []),
  ].join('\n');
}
