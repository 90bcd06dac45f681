import type { ZodError } from './zod.ts';

/** The first schema issue as a key path ("gate.maxP2F") and a message, for one-line errors. */
export function firstIssue(error: ZodError): { key: string; message: string } {
  const issue = error.issues[0];
  if (!issue) return { key: '(root)', message: 'invalid' };
  const key = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys?: string[] }).keys ?? [];
    const prefix = issue.path.length > 0 ? `${key}.` : '';
    return { key: `${prefix}${keys[0] ?? ''}`, message: 'unknown key (check its spelling)' };
  }
  return { key, message: issue.message };
}
