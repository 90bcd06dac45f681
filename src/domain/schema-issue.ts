import type { ZodError } from './zod.ts';

/** The first schema issue as a key path ("gate.maxP2F") and a message, for one-line errors. */
export function firstIssue(error: ZodError): { key: string; message: string } {
  const issue = error.issues[0];
  if (!issue) return { key: '(root)', message: 'invalid' };
  const key = issue.path.length > 0 ? keyPath(issue.path) : '(root)';
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys?: string[] }).keys ?? [];
    const prefix = issue.path.length > 0 ? `${key}.` : '';
    return { key: `${prefix}${keys[0] ?? ''}`, message: 'unknown key (check its spelling)' };
  }
  return { key, message: issue.message };
}

/** ["tools", 0, "name"] → "tools[0].name", as a reader of the file would point at it. */
export function keyPath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join('');
}
