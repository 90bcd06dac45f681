// Requirement-level evaluation (EvoMAC): a case may carry its own requirements, and the rubric
// may declare task-wide ones in a ```json requirements block. Each requirement gets its own
// verdict per case-trial: from the named scorer when it has one (executed evidence outranks
// model opinion), else from the critic. A case passes when all its requirements pass.
import { rubricBlock } from './rubric-blocks.ts';
import { z } from './zod.ts';

export const requirementSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, 'expected an id of letters, digits, ".", "_" or "-", starting with a letter'),
    text: z.string().min(1),
    /** The scorer (by kind, as task.json lists it) whose verdict decides this requirement; without one the critic judges it. */
    scorer: z.string().min(1).optional(),
    /** For the offline heuristic critic only: a trace showing one of these symptoms breaks the requirement. */
    symptoms: z.array(z.string()).default([]),
  })
  .strict();
export type Requirement = z.output<typeof requirementSchema>;

export const requirementListSchema = z.array(requirementSchema).superRefine((list, context) => {
  const seen = new Set<string>();
  list.forEach((r, i) => {
    if (seen.has(r.id)) context.addIssue({ code: 'custom', path: [i, 'id'], message: `the requirement "${r.id}" appears twice` });
    seen.add(r.id);
  });
});

/** The rubric's task-wide requirements (none when it has no block). Throws RubricBlockError on a malformed block. */
export function rubricRequirements(rubric: string): Requirement[] {
  return rubricBlock(rubric, 'requirements', requirementListSchema) ?? [];
}

/** A requirement's verdict on one case-trial, and who gave it. */
export const requirementVerdictSchema = z.object({
  id: z.string(),
  pass: z.boolean(),
  by: z.enum(['scorer', 'critic']),
  reason: z.string().max(300),
});
export type RequirementVerdict = z.infer<typeof requirementVerdictSchema>;

/** The requirements that hold for one case: the rubric's, then the case's own (a case's own id wins). */
export function caseRequirements(taskWide: readonly Requirement[], testCase: Record<string, unknown>): Requirement[] {
  const own = requirementListSchema.safeParse(testCase.requirements ?? []);
  const ownList = own.success ? own.data : [];
  const ids = new Set(ownList.map((r) => r.id));
  return [...taskWide.filter((r) => !ids.has(r.id)), ...ownList];
}

/** The requirements of a case that no scorer decides: the critic gives each a verdict. */
export function criticJudged(taskWide: readonly Requirement[], testCase: Record<string, unknown>): Array<{ id: string; text: string; symptoms: string[] }> {
  return caseRequirements(taskWide, testCase)
    .filter((r) => r.scorer === undefined)
    .map((r) => ({ id: r.id, text: r.text, symptoms: [...r.symptoms] }));
}
