import { z } from './zod.ts';

export const scorerCheckSchema = z.object({
  scorer: z.string(),
  pass: z.boolean(),
  code: z.string().optional(),
  message: z.string().optional(),
});
export type ScorerCheck = z.infer<typeof scorerCheckSchema>;

/** The deterministic grading signal g(x): every configured scorer's check, and their conjunction. */
export const scorerResultSchema = z.object({
  pass: z.boolean(),
  checks: z.array(scorerCheckSchema),
});
export type ScorerResult = z.infer<typeof scorerResultSchema>;

/** The critic's judgement (pass, symptom label, one-line description); no causes, no fixes. */
export const criticVerdictSchema = z.object({
  pass: z.boolean(),
  label: z
    .string()
    .regex(/^[a-z][a-z0-9_]{1,63}$/, 'a symptom label is snake_case, 2 to 64 characters'),
  description: z.string().max(300),
});
export type CriticVerdict = z.infer<typeof criticVerdictSchema>;

/** The label a passing case carries, so every record has one. */
export const PASSING_LABEL = 'ok';

export type RecordStatus = 'ok' | 'infra_error';

/** Per case-trial quality record r(x) of the paper, eq. 8. */
export interface CaseRecord {
  readonly caseId: string;
  readonly trial: number;
  readonly status: RecordStatus;
  readonly output: unknown;
  readonly traceRef: string;
  readonly scorer: ScorerResult | null;
  readonly critic: CriticVerdict | null;
  /** Final pass (eq. 6): the scorer's verdict when a scorer exists, else the critic's. Null for infra errors. */
  readonly pass: boolean | null;
  readonly error: string | null;
}

export function finalPass(scorer: ScorerResult | null, critic: CriticVerdict | null): boolean | null {
  if (scorer) return scorer.pass;
  if (critic) return critic.pass;
  return null;
}
