// The import rules of src/ (docs/architecture.md) as data, and the checker that reads the sources.
// Files are put in zones by their path.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type Zone = 'domain' | 'config' | 'stages' | 'pipeline' | 'adapters' | 'app' | 'cli' | 'api';

/** The zone of a path of the re-zoned layout. */
export function zoneOf(file: string): Zone | null {
  if (file === 'src/api.ts') return 'api';
  const top = /^src\/([^/]+)\//.exec(file)?.[1];
  switch (top) {
    case 'domain':
    case 'config':
    case 'stages':
    case 'pipeline':
    case 'adapters':
    case 'app':
    case 'cli':
      return top;
    default:
      return null;
  }
}

/**
 * Which zones each zone may import. Domain imports nothing of ours; stages compute from domain
 * values (a stage may use another stage's pure functions, never in a circle); adapters implement
 * domain ports; the pipeline composes stages over ports; only app/ (and the library entry) wires
 * adapters into it; the CLI parses, calls app and the pipeline, and renders.
 */
export const ALLOWED: Readonly<Record<Zone, readonly Zone[]>> = {
  domain: ['domain'],
  config: ['config', 'domain'],
  stages: ['stages', 'domain'],
  adapters: ['adapters', 'domain', 'config'],
  pipeline: ['pipeline', 'stages', 'domain', 'config'],
  app: ['app', 'pipeline', 'stages', 'adapters', 'domain', 'config'],
  cli: ['cli', 'app', 'pipeline', 'stages', 'domain', 'config'],
  api: ['app', 'pipeline', 'stages', 'domain', 'config'],
};

/**
 * Imports allowed against the table, named one by one (re-zoned paths; `*` matches within one
 * folder, `**` across folders), each with its reason. There are none: every import of src/ keeps
 * the rules. An entry added here must name why, and one that no import uses any more fails the
 * test (stale), so the list cannot hide debt that is gone.
 */
export const EXCEPTIONS: readonly { readonly from: string; readonly to: string; readonly why: string }[] = [];

export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** `import type` only (erased at run time; still a layering dependency). */
  readonly typeOnly: boolean;
}

function listSources(root: string, dir = 'src'): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listSources(root, rel));
    else if (/\.(ts|mts|mjs)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

const FILE_URL = /new URL\(\s*['"`](\.{1,2}\/[^'"`$]+)['"`]\s*,\s*import\.meta\.url/g;

/** Every import between files of src/ (static, dynamic, re-exports, and files read through `new URL(…, import.meta.url)`). */
export function readImports(root: string): { files: string[]; edges: ImportEdge[] } {
  const files = listSources(root);
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const specifiers: { spec: string; typeOnly: boolean }[] = [];
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        const typeOnly = ts.isImportDeclaration(node) ? (node.importClause?.isTypeOnly ?? false) : node.isTypeOnly;
        specifiers.push({ spec: node.moduleSpecifier.text, typeOnly });
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const arg = node.arguments[0];
        if (arg && ts.isStringLiteralLike(arg)) specifiers.push({ spec: arg.text, typeOnly: false });
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        specifiers.push({ spec: node.argument.literal.text, typeOnly: true });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    for (const match of text.matchAll(FILE_URL)) specifiers.push({ spec: match[1]!, typeOnly: false });
    for (const { spec, typeOnly } of specifiers) {
      if (!spec.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      if (known.has(target)) edges.push({ from: file, to: target, typeOnly });
    }
  }
  return { files, edges };
}

/** A path's place in the layout (the re-zone that once moved files has finished: a path is its place). */
const rezoned = (file: string): string => file;

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

export interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: string;
}

export interface ImportCheck {
  readonly violations: readonly Violation[];
  readonly cycles: readonly (readonly string[])[];
  /** Exceptions that no import needs any more. */
  readonly stale: readonly string[];
}

/** Strongly connected components of more than one file (or a file importing itself). */
function findCycles(files: readonly string[], edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const strongConnect = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!indexOf.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const file of files) if (!indexOf.has(file)) strongConnect(file);
  return cycles;
}

export function checkImports(
  root: string,
  rules: { readonly allowed: typeof ALLOWED; readonly exceptions: typeof EXCEPTIONS } = { allowed: ALLOWED, exceptions: EXCEPTIONS },
): ImportCheck {
  const { files, edges } = readImports(root);
  const exceptions = rules.exceptions.map((e) => ({ ...e, fromRe: globToRegExp(e.from), toRe: globToRegExp(e.to), used: false }));
  const violations: Violation[] = [];
  for (const edge of edges) {
    const from = rezoned(edge.from);
    const to = rezoned(edge.to);
    const fromZone = zoneOf(from);
    const toZone = zoneOf(to);
    if (fromZone === null || toZone === null) {
      violations.push({ from, to, rule: `${fromZone === null ? from : to} lies in no zone of the layout` });
      continue;
    }
    if (rules.allowed[fromZone].includes(toZone)) continue;
    const excused = exceptions.find((e) => e.fromRe.test(from) && e.toRe.test(to));
    if (excused) {
      excused.used = true;
      continue;
    }
    violations.push({ from, to, rule: `${fromZone} may not import ${toZone}` });
  }
  const cycles = findCycles(files, edges).map((c) => c.map(rezoned));
  const stale = exceptions.filter((e) => !e.used).map((e) => `${e.from} -> ${e.to}`);
  return { violations, cycles, stale };
}
