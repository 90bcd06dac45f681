import { AgentdevelError } from './errors.ts';
import { caseSchema, type Case } from './case.ts';
import { parseJson } from './json.ts';

/**
 * Parses a split (JSON lines). The first bad line stops the load with one error naming the
 * file and line, before anything runs or is recorded. `check` adds what the task's scorers
 * need of a case (a problem as "key: what is wrong", or null).
 */
export function parseCases(text: string, file: string, check: (testCase: Case) => string | null = () => null): Case[] {
  const cases: Case[] = [];
  const firstLineOf = new Map<string, number>();
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const lineNumber = index + 1;
    const line = raw.trim();
    if (line === '') return;
    const parsed = parseJson(line);
    if (!parsed.ok) fail(file, lineNumber, `not valid JSON: ${parsed.message}`);
    // A case is an object with a non-empty string id and anything else: said so directly, the
    // schema (whose passthrough copies every case) is asked only to word what is wrong.
    const value = parsed.value as Record<string, unknown> | null;
    const checked: { success: true; data: Case } | ReturnType<typeof caseSchema.safeParse> =
      value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.id === 'string' && value.id.length > 0
        ? { success: true, data: value as Case }
        : caseSchema.safeParse(parsed.value);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const key = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      fail(file, lineNumber, `${key}${issue?.message ?? 'invalid case'}`);
    }
    const previous = firstLineOf.get(checked.data.id);
    if (previous !== undefined) {
      fail(file, lineNumber, `duplicate case id "${checked.data.id}" (first used on line ${previous})`);
    }
    firstLineOf.set(checked.data.id, lineNumber);
    const problem = check(checked.data as Case);
    if (problem) fail(file, lineNumber, problem);
    cases.push(checked.data as Case);
  });
  if (cases.length === 0) fail(file, 1, 'the split has no cases');
  return cases;
}

function fail(file: string, line: number, message: string): never {
  throw new AgentdevelError('CASES_INVALID', `${file}:${line}: ${message}`, { location: { file, line } });
}
