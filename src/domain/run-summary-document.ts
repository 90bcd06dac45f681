// The runs a gate decision used, as they live in git beside decision.json:
// `releases/<bp>/<vN|rejected/iter-NNN>/runs.json`. Each run keeps its identity (the cache key
// and what it is made of: blueprint and task content, split, trials, models, cases, first trial)
// and one row per case-trial: pass, scorer verdict, critic verdict (its symptom), status. A
// fresh clone rebuilds its store from these (see pipeline/rebuild-store), so a later gate can
// reuse the release's screen and a replay sees the records the original saw. Traces are kept
// only for the runs a later diagnosis reads (a version's first whole-split record); confirmation
// runs and the screen's extra records keep none.
import { criticVerdictSchema, scorerResultSchema, type CriticVerdict } from './record.ts';
import { runKeyPartsSchema } from './run-fingerprint.ts';
import { z } from './zod.ts';

/** Version 2 adds each run's `keyParts` (critic policy, record format, cases, first trial); version 1 is read with none. */
export const RUNS_SCHEMA = 'agentdevel/runs@2';
export const RUNS_FILE = 'runs.json';

export const recordedCaseTrialSchema = z.object({
  caseId: z.string(),
  trial: z.number().int().min(0),
  status: z.enum(['ok', 'infra_error']),
  output: z.unknown(),
  scorer: scorerResultSchema.nullable(),
  critic: criticVerdictSchema.nullable(),
  pass: z.boolean().nullable(),
  error: z.string().nullable(),
  agentError: z.string().nullable().default(null),
  /** The case-trial's trace as JSON lines (redacted as written), or null when it stays out of git. */
  trace: z.array(z.string()).nullable().default(null),
  /** What the critic's verdict was given on (the judge-once key): a clone reuses the verdict for the same content. Absent in older documents. */
  verdictKey: z.string().regex(/^[0-9a-f]{64}$/).nullable().default(null),
});
export type RecordedCaseTrial = z.output<typeof recordedCaseTrialSchema>;

export const recordedRunSchema = z.object({
  runId: z.string(),
  purpose: z.enum(['baseline', 'candidate', 'run', 'confirm']),
  status: z.enum(['complete', 'failed']),
  cacheKey: z.string(),
  blueprint: z.string(),
  commit: z.string(),
  blueprintTree: z.string(),
  taskTree: z.string(),
  split: z.literal('train'),
  trials: z.number().int().min(1),
  agentModel: z.string(),
  criticModel: z.string(),
  simulated: z.boolean(),
  keyParts: runKeyPartsSchema.nullable().default(null),
  records: z.array(recordedCaseTrialSchema),
});
export type RecordedRun = z.output<typeof recordedRunSchema>;

export const runsDocumentSchema = z.object({
  schema: z.enum(['agentdevel/runs@1', RUNS_SCHEMA]),
  runs: z.array(recordedRunSchema),
});
export type RunsDocument = z.output<typeof runsDocumentSchema>;

/** The critic verdicts a runs document records, by the content they were given on (what the line lets any command reuse). */
export function recordedVerdicts(document: RunsDocument): Array<{ key: string; verdict: CriticVerdict }> {
  return document.runs.flatMap((run) => run.records.flatMap((r) => (r.critic && r.verdictKey ? [{ key: r.verdictKey, verdict: r.critic }] : [])));
}
