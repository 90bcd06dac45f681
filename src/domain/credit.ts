import { z } from './zod.ts';

// Credit per component (BOAD): which crew members, tool wrappers and prompt partials took part
// in passing and failing case-trials, and, from the helpfulness judge, whether their calls
// helped. One document per iteration, committed beside the diagnosis
// (diagnostics/<blueprint>/iter-NNN/credit.json).

export const CREDIT_SCHEMA = 'agentdevel/credit@1';

export const componentKinds = ['member', 'tool', 'partial'] as const;
export type ComponentKind = (typeof componentKinds)[number];

const helpfulnessSchema = z.object({
  /** Call sites the judge gave a verdict on. */
  judged: z.number().int().nonnegative(),
  helpful: z.number().int().nonnegative(),
  rate: z.number().min(0).max(1).nullable(),
});

export const componentCreditSchema = z.object({
  name: z.string(),
  kind: z.enum(componentKinds),
  /** Call sites: a member's or a tool's calls; a partial's model turns (prompts it was part of). */
  calls: z.number().int().nonnegative(),
  /** Calls that failed (a tool error, a member with no answer, an agent error of a partial's agent). */
  errors: z.number().int().nonnegative(),
  callsOnPassing: z.number().int().nonnegative(),
  callsOnFailing: z.number().int().nonnegative(),
  /** Graded case-trials it took part in, and how many of them passed. */
  caseTrials: z.number().int().nonnegative(),
  passingCaseTrials: z.number().int().nonnegative(),
  /** passingCaseTrials / caseTrials; null when it never took part. */
  successRate: z.number().min(0).max(1).nullable(),
  /** Calls on the cases the last RC fixed (F→P) and broke (P→F). */
  callsOnFixed: z.number().int().nonnegative(),
  callsOnBroken: z.number().int().nonnegative(),
  /** The judge's verdicts; null when the judge was off or does not judge this kind. */
  helpfulness: helpfulnessSchema.nullable(),
  /** High success rate, low helpfulness (config credit.freeRider). */
  freeRider: z.boolean(),
});
export type ComponentCredit = z.infer<typeof componentCreditSchema>;

export const creditDocumentSchema = z.object({
  schema: z.literal(CREDIT_SCHEMA),
  iteration: z.number().int().positive(),
  blueprint: z.string(),
  /** The run of the current release the credit is read from. */
  runId: z.string(),
  lastRc: z.object({ iteration: z.number().int(), fixed: z.array(z.string()), broken: z.array(z.string()) }).nullable(),
  judge: z.object({ enabled: z.boolean(), model: z.string().nullable(), calls: z.number().int().nonnegative() }),
  freeRider: z.object({ minSuccessRate: z.number(), maxHelpfulness: z.number() }),
  components: z.array(componentCreditSchema),
  /** Component names, best first (components without a figure are left out). */
  ranking: z.object({ byHelpfulness: z.array(z.string()), bySuccessRate: z.array(z.string()) }),
  simulated: z.boolean(),
});
export type CreditDocument = z.infer<typeof creditDocumentSchema>;
