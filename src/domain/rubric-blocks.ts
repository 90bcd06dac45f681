// Machine-readable blocks of a rubric: ```json NAME fenced blocks (critic-rules, requirements).
// They are task knowledge, not blueprint. A block that is there but malformed is bad input,
// found when the task loads and named by its line, never silently replaced by a default.
import { parseJson } from './json.ts';
import { firstIssue } from './schema-issue.ts';
import type { ZodType } from './zod.ts';

/** A rubric block does not parse; `line` is 1-based in the rubric. */
export class RubricBlockError extends Error {
  constructor(
    readonly block: string,
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'RubricBlockError';
  }
}

/** The block's value checked by its schema, or null when the rubric has no such block. */
export function rubricBlock<T>(rubric: string, name: string, schema: ZodType<T>): T | null {
  const opening = new RegExp(`\`\`\`json ${name}[^\\S\\n]*\\n`).exec(rubric);
  if (!opening) return null;
  const fenceLine = rubric.slice(0, opening.index).split('\n').length;
  const start = opening.index + opening[0].length;
  const end = rubric.indexOf('```', start);
  if (end < 0) throw new RubricBlockError(name, fenceLine, `the ${name} block is never closed with \`\`\``);
  const parsed = parseJson(rubric.slice(start, end));
  if (!parsed.ok) throw new RubricBlockError(name, fenceLine + parsed.line, `not valid JSON: ${parsed.message}`);
  const checked = schema.safeParse(parsed.value);
  if (!checked.success) {
    const { key, message } = firstIssue(checked.error);
    throw new RubricBlockError(name, fenceLine, `${key}: ${message}`);
  }
  return checked.data;
}
