import { z } from './zod.ts';

export const scorerCheckSchema = z.object({
  scorer: z.string(),
  pass: z.boolean(),
  code: z.string().optional(),
  message: z.string().optional(),
  /** A measured value (the trace cost, a numeric scorer's reading), for reports and the composite. */
  value: z.number().optional(),
  /** False for a check that only measures (a cost scorer without a threshold): it never decides pass or fail. */
  decides: z.boolean().optional(),
  // The structured reason of a failed check, each part optional so later checks can add their
  // own: where the output differs (a dot path), what was expected there and what was found.
  // Values are clipped (see clipValue) so records stay small.
  where: z.string().optional(),
  expected: z.unknown().optional(),
  actual: z.unknown().optional(),
});
export type ScorerCheck = z.infer<typeof scorerCheckSchema>;

/** The deterministic grading signal g(x): every configured scorer's check, and their conjunction. */
export const scorerResultSchema = z.object({
  pass: z.boolean(),
  checks: z.array(scorerCheckSchema),
  /** False when every check only measures (a cost scorer without a threshold): the critic then decides. */
  decides: z.boolean().optional(),
});
export type ScorerResult = z.infer<typeof scorerResultSchema>;

/** Whether the scorers give a verdict that decides pass or fail (paper eq. 6). */
export function scorerDecides(scorer: ScorerResult | null): scorer is ScorerResult {
  return scorer !== null && scorer.decides !== false;
}

/** The critic's judgement (pass, symptom label, one-line description); no causes, no fixes. */
export const criticVerdictSchema = z.object({
  pass: z.boolean(),
  label: z
    .string()
    .regex(/^[a-z][a-z0-9_]{1,63}$/, 'a symptom label is snake_case, 2 to 64 characters'),
  description: z.string().max(300),
  /** The critic's verdict on each requirement of the case that no scorer decides. */
  requirements: z.array(z.object({ id: z.string(), pass: z.boolean(), reason: z.string().max(300) })).optional(),
});
export type CriticVerdict = z.infer<typeof criticVerdictSchema>;

/** A requirement the critic judges (no scorer decides it). */
export interface CriticRequirement {
  readonly id: string;
  readonly text: string;
  /** For the offline heuristic critic: symptoms that break it. */
  readonly symptoms: readonly string[];
}

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
  /** The first error the agent itself reported in its trace (kind "agent"): the case-trial is graded, and this says why it went wrong. */
  readonly agentError?: string | null;
  /** What the critic's verdict was given on (stages/critic/judge-once's key), so the verdict can be reused for the same content; null without a verdict or when not known (older records). */
  readonly verdictKey?: string | null;
}

export function finalPass(scorer: ScorerResult | null, critic: CriticVerdict | null): boolean | null {
  // The scorer decides what it checks; a requirement no scorer checks is the critic's to judge.
  if (scorerDecides(scorer)) return scorer.pass && (critic?.requirements ?? []).every((r) => r.pass);
  if (critic) return critic.pass;
  return null;
}

const MAX_TEXT = 200;

/** A value small enough for a record and a report: long strings and large objects are cut. */
export function clipValue(value: unknown): unknown {
  if (typeof value === 'string') return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  if (value === null || typeof value !== 'object') return value;
  const text = JSON.stringify(value);
  return text.length > MAX_TEXT * 2 ? `${text.slice(0, MAX_TEXT * 2)}…` : value;
}

/** One line: "expected X, got Y" (at a path), for a scorer check that failed. */
export function checkReason(check: ScorerCheck): string {
  // One line: long values are cut here (the record keeps them whole, up to clipValue).
  const show = (value: unknown): string => {
    const text = JSON.stringify(value) ?? 'nothing';
    return text.length > 80 ? `${text.slice(0, 80)}…` : text;
  };
  const parts: string[] = [];
  if (check.expected !== undefined || check.actual !== undefined) {
    const at = check.where ? ` at ${check.where}` : '';
    parts.push(`expected ${check.expected === undefined ? 'something else' : show(check.expected)}${at}, got ${check.actual === undefined ? 'nothing' : show(check.actual)}`);
  }
  return `${check.scorer} scorer: ${parts[0] ?? check.message ?? 'failed'}`;
}

/**
 * Why one case-trial failed, in one line: the scorer's failed check (expected against actual),
 * the critic's label, and the agent's own error when it reported one.
 */
export function trialReason(record: CaseRecord): string {
  if (record.status === 'infra_error') return `infra_error: ${record.error ?? 'no verdict'}`;
  if (record.pass) return 'passed';
  const parts: string[] = [];
  const failedCheck = record.scorer?.checks.find((c) => !c.pass);
  if (failedCheck) parts.push(checkReason(failedCheck));
  if (record.critic && !record.critic.pass) parts.push(`critic: ${record.critic.label}${failedCheck ? '' : ` (${record.critic.description})`}`);
  if (record.agentError) parts.push(`agent error: ${record.agentError}`);
  return parts.join(' · ') || 'failed';
}

/** Which case-trials the critic is asked about (config `critic`). */
export type CriticPolicy = 'all' | 'failing' | 'off';

/** The written policy, or its default: "failing" where scorers decide, "all" where the critic does. */
export function effectiveCriticPolicy(written: CriticPolicy | undefined, hasScorers: boolean): CriticPolicy {
  return written ?? (hasScorers ? 'failing' : 'all');
}
