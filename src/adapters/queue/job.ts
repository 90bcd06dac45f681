// What travels through the queue, in both directions: one case-trial job and its result. Both
// are tagged with the shared key (queue-key.ts) and parsed on arrival (a worker and a coordinator
// may run different agentdevel versions). Neither carries a secret (the worker reads its own
// credentials), and a job carries only what the agent's runtime needs: the case as the agent
// sees it, never its grading fields, which stay with the coordinator.
import { createHash } from 'node:crypto';
import { roles } from '../../domain/ports/model.ts';
import { caseSchema } from '../../domain/case.ts';
import { traceEventSchema } from '../../domain/trace.ts';
import { z } from '../../domain/zod.ts';

/** Bumped when a job or its result changes shape; a worker refuses jobs of another version. */
export const JOB_SCHEMA = 4;

const objectId = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'expected a git object id');

/** The version a job runs: a snapshot commit holding the blueprint and task folders, named by its tree. */
export const snapshotSchema = z
  .object({
    commit: objectId,
    /** The content fingerprint a worker caches the checkout by. */
    tree: objectId,
    /** The Redis key of the git bundle that holds the commit. */
    bundleKey: z.string().min(1),
    /** The bundle's size: a small one is read before the remote is asked (warm-checkouts.ts). */
    bundleBytes: z.number().int().nonnegative(),
    /** The workspace commit the snapshot was taken from ("+dirty": uncommitted files), for messages. */
    source: z.string(),
    /** Where a worker may fetch that commit instead of reading the bundle: the workspace's remote (no password); null when dirty or none. */
    remote: z.object({ url: z.string().min(1), commit: objectId }).strict().nullable(),
  })
  .strict();
export type Snapshot = z.infer<typeof snapshotSchema>;

export const caseTrialJobSchema = z
  .object({
    schema: z.literal(JOB_SCHEMA),
    snapshot: snapshotSchema,
    blueprint: z.string().min(1),
    task: z.string().min(1),
    /** The case as the agent sees it (`visibleCase`): no grading field travels. */
    testCase: caseSchema,
    trial: z.number().int().min(0),
    /** The agent's model id ("mock" or a Claude model); the worker's own key pays for it. */
    agentModel: z.string().min(1),
    callTimeoutMs: z.number().int().min(1),
    memoryMb: z.number().int().min(1),
    /** Tool hosts shared by case-trials, or one per case-trial (config `sandbox.isolation`). */
    isolation: z.enum(['shared', 'case']).default('shared'),
    /** Names only: a `command` agent gets these variables from the worker's environment. */
    passEnv: z.array(z.string()),
  })
  .strict();
export type CaseTrialJob = z.infer<typeof caseTrialJobSchema>;

/**
 * A version as a worker prepares it: a job without its case. The coordinator publishes the last
 * one it ran, so a worker that starts checks it out and starts its runtime before taking a job.
 */
export const jobVersionSchema = caseTrialJobSchema.omit({ testCase: true, trial: true });
export type JobVersion = z.infer<typeof jobVersionSchema>;

const usageSchema = z.object({
  role: z.enum([...roles, 'reviewer']),
  model: z.string(),
  usage: z.object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadTokens: z.number(),
    cacheWriteTokens: z.number(),
    costUsd: z.number(),
  }),
});
export type ModelCallUsage = z.infer<typeof usageSchema>;

const observationSchema = z.object({ state: z.unknown(), expectedState: z.unknown() }).nullable();

/**
 * What a worker sends back: the trace events the runtime emitted (the coordinator writes the
 * trace) and the outcome, or the infrastructure error the runtime reported (a model API down).
 */
export const caseTrialResultSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('ran'),
    events: z.array(traceEventSchema),
    output: z.unknown(),
    observation: observationSchema,
    usage: z.array(usageSchema),
    worker: z.string(),
  }),
  z.object({
    kind: z.literal('infra_error'),
    events: z.array(traceEventSchema),
    message: z.string(),
    usage: z.array(usageSchema),
    worker: z.string(),
  }),
]);
export type CaseTrialResult = z.infer<typeof caseTrialResultSchema>;

/**
 * A job's id is its content: the same case-trial of the same snapshot and settings is one job,
 * so a coordinator that restarts finds the results already collected instead of running them
 * again. The job is serialized once, for its id and for the body its tag covers.
 */
export function serializedJob(job: CaseTrialJob): { readonly id: string; readonly body: string } {
  const body = JSON.stringify(job);
  return { id: createHash('sha256').update(body).digest('hex'), body };
}

export const caseTrialJobId = (job: CaseTrialJob): string => serializedJob(job).id;

/** The shape of a result, checked field by field without its trace events' schemas. */
function hasResultShape(value: unknown): value is CaseTrialResult {
  if (value === null || typeof value !== 'object') return false;
  const result = value as Record<string, unknown>;
  if (!Array.isArray(result.events) || !Array.isArray(result.usage) || typeof result.worker !== 'string') return false;
  if (result.kind === 'infra_error') return typeof result.message === 'string';
  return result.kind === 'ran' && 'output' in result && (result.observation === null || typeof result.observation === 'object');
}

/**
 * Reads the results the workers send back. A result is read only once its tag proved that a
 * holder of the queue key wrote it for its job, and a worker runs only jobs of this schema:
 * its code, not Redis, decides the result's shape. So the full schema check (every trace event
 * of it) is made on the first result of each worker process, and the rest of that worker's
 * results get a check of their shape alone. Null: not a case-trial result.
 */
export function caseTrialResultReader(): (value: unknown) => CaseTrialResult | null {
  const checked = new Set<string>();
  return (value) => {
    if (hasResultShape(value) && checked.has(value.worker)) return value;
    const parsed = caseTrialResultSchema.safeParse(value);
    if (!parsed.success) return null;
    checked.add(parsed.data.worker);
    return parsed.data;
  };
}

/**
 * Reads the jobs a worker takes, by the same reasoning: a job is read only once its tag proved
 * a coordinator holding the key wrote it, with this schema's number. The first job of each
 * version (snapshot) gets the full check, the rest a check of the fields the worker reads.
 * Null: not a case-trial job of this schema.
 */
export function caseTrialJobReader(): (value: unknown) => CaseTrialJob | null {
  const checked = new Set<string>();
  return (value) => {
    const job = value as Partial<CaseTrialJob> | null;
    const tree = job?.snapshot?.tree;
    const shaped =
      job !== null && typeof job === 'object' && job.schema === JOB_SCHEMA && typeof tree === 'string' && typeof job.testCase?.id === 'string' && typeof job.trial === 'number';
    if (shaped && checked.has(tree)) return job as CaseTrialJob;
    const parsed = caseTrialJobSchema.safeParse(value);
    if (!parsed.success) return null;
    checked.add(parsed.data.snapshot.tree);
    return parsed.data;
  };
}
