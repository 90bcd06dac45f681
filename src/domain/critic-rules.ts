// The optional machine-readable rules of a rubric: a ```json critic-rules fenced block that the
// offline heuristic critic reads (tools that need a confirmed "yes" first, tools that need a
// lookup first). Task knowledge, not blueprint. A block that is there but malformed is bad input,
// found when the task loads, never silently replaced by the defaults.
import { parseJson } from './json.ts';
import { firstIssue } from './schema-issue.ts';
import { z } from './zod.ts';

const criticRulesSchema = z
  .object({
    confirmBefore: z.array(z.string()).default([]),
    lookupBefore: z.record(z.string(), z.string()).default({}),
    repeatLimit: z.number().int().min(2).default(3),
  })
  .strict();
export type CriticRules = z.output<typeof criticRulesSchema>;

/** The rubric's critic-rules block does not parse; `line` is 1-based in the rubric. */
export class CriticRulesError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'CriticRulesError';
  }
}

const OPENING = /```json critic-rules[^\S\n]*\n/;

/** The rules of a rubric (the defaults when it has no block). Throws CriticRulesError on a malformed block. */
export function criticRules(rubric: string): CriticRules {
  const opening = OPENING.exec(rubric);
  if (!opening) return criticRulesSchema.parse({});
  const fenceLine = rubric.slice(0, opening.index).split('\n').length;
  const start = opening.index + opening[0].length;
  const end = rubric.indexOf('```', start);
  if (end < 0) throw new CriticRulesError(fenceLine, 'the critic-rules block is never closed with ```');
  const parsed = parseJson(rubric.slice(start, end));
  if (!parsed.ok) throw new CriticRulesError(fenceLine + parsed.line, `not valid JSON: ${parsed.message}`);
  const checked = criticRulesSchema.safeParse(parsed.value);
  if (!checked.success) {
    const { key, message } = firstIssue(checked.error);
    throw new CriticRulesError(fenceLine, `${key}: ${message}`);
  }
  return checked.data;
}
