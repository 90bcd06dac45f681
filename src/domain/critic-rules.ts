// The optional machine-readable rules of a rubric: a ```json critic-rules fenced block that the
// offline heuristic critic reads (tools that need a confirmed "yes" first, tools that need a
// lookup first). Task knowledge, not blueprint. A block that is there but malformed is bad input,
// found when the task loads, never silently replaced by the defaults.
import { rubricBlock } from './rubric-blocks.ts';
import { z } from './zod.ts';

const criticRulesSchema = z
  .object({
    confirmBefore: z.array(z.string()).default([]),
    lookupBefore: z.record(z.string(), z.string()).default({}),
    repeatLimit: z.number().int().min(2).default(3),
  })
  .strict();
export type CriticRules = z.output<typeof criticRulesSchema>;

/** The rules of a rubric (the defaults when it has no block). Throws RubricBlockError on a malformed block. */
export function criticRules(rubric: string): CriticRules {
  return rubricBlock(rubric, 'critic-rules', criticRulesSchema) ?? criticRulesSchema.parse({});
}
