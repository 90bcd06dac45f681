// The coordinator's executor: case-trials run on workers through the queue. The version is
// published once per run as a git bundle in Redis; each case-trial is one job; the results come
// back as trace events and an outcome, which the caller grades and records as if they had run
// here. The coordinator alone writes the store, the traces and git.
import path from 'node:path';
import { bundleEnvironment, loadBlueprint } from '../blueprint/load.ts';
import { visibleCase, type CaseOutcome, type Runtime, type TraceSink } from '../../domain/ports/runtime.ts';
import { expectedStateReader } from '../runtimes/tool-loop.ts';
import { splitNames } from '../../domain/case.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { InfraError, type CallRole, type Usage } from '../../domain/ports/model.ts';
import { bundleSnapshot, remoteOf } from '../git/snapshot.ts';
import type { CaseTrialExecutor, VersionToRun } from '../../domain/ports/case-trial-executor.ts';
import { JobGaveUp, NoWorkerAnswered, openCaseTrialQueue, QueueUnreachable, type CaseTrialQueue, type Collected, type CoordinatorSettings } from './bullmq.ts';
import { KEY_MISMATCH_REASON, QUEUE_KEY_VARIABLE } from './queue-key.ts';
import { caseTrialResultReader, JOB_SCHEMA, serializedJob, type CaseTrialJob, type CaseTrialResult, type JobVersion, type Snapshot } from './job.ts';
import type { QueueAddress } from '../../domain/queue-address.ts';

export { queueKeyFrom } from './queue-key.ts';

/** Case-trials in flight through the queue at once: enough to keep many workers busy. */
export const QUEUE_IN_FLIGHT = 256;
/** Bundles above this size are refused: Redis holds them in memory. */
export const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;
const BUNDLE_TTL_SECONDS = 7 * 24 * 3600;

export const defaultCoordinatorSettings: CoordinatorSettings = {
  lostAfterMs: 10_000,
  idleLimitMs: 10 * 60_000,
  noWorkerHintMs: 30_000,
  attempts: 3,
  keepResultsSeconds: 24 * 3600,
};

export interface QueueExecutorDeps {
  /** The key shared with the workers (AGENTDEVEL_QUEUE_KEY): jobs and results are tagged with it; it never reaches Redis. */
  readonly key: Buffer;
  /** Model calls the workers made for the agent role, charged in the coordinator's cost ledger. */
  readonly ledger: (role: CallRole, model: string, usage: Usage) => void;
  /** What a waiting command should tell its user (no worker connected). */
  readonly note?: (message: string) => void;
}

/** The queue errors a command reports: an infrastructure failure, never an agent's. */
function commandError(error: unknown): unknown {
  if (error instanceof QueueUnreachable) return new AgentdevelError('QUEUE_UNAVAILABLE', error.message, { cause: error });
  if (error instanceof NoWorkerAnswered) return new AgentdevelError('QUEUE_NO_WORKERS', `${error.message}: are workers running on this queue?`, { cause: error });
  return error;
}

/**
 * Connects to the queue at the first version it starts (a command that runs nothing, or reuses
 * every run, never connects). An unreachable Redis is QUEUE_UNAVAILABLE, before anything is recorded.
 */
export function queueExecutor(address: QueueAddress, settings: CoordinatorSettings, deps: QueueExecutorDeps): CaseTrialExecutor {
  let opening: Promise<CaseTrialQueue> | null = null;
  /** The queue once connected: before that, no case-trial can have been sent. */
  let connectedQueue: CaseTrialQueue | null = null;
  const queue = async (): Promise<CaseTrialQueue> => {
    opening ??= openCaseTrialQueue(address, settings, deps.key, deps.note).then((connected) => (connectedQueue = connected));
    try {
      return await opening;
    } catch (error) {
      opening = null;
      throw commandError(error);
    }
  };

  async function start(version: VersionToRun) {
    const { settings } = version;
    const splits = splitNames.map((split) => `:(exclude)rubrics/${settings.task}/${split}.jsonl`);
    // The snapshot's git processes, and the remote's, run while the blueprint and the task's
    // environment load; their errors are reported after the blueprint's (bad input comes first).
    const bundling = bundleSnapshot(version.dir, [`blueprints/${settings.blueprint}`, `rubrics/${settings.task}`, ...splits], path.join(version.buildDir, 'snapshots'));
    // A committed version can also come from the workspace's remote, where a worker can reach it (a large one does: warm-checkouts.ts).
    const remoting = /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(version.commit) ? remoteOf(version.dir) : Promise.resolve(null);
    bundling.catch(() => undefined);
    remoting.catch(() => undefined);
    // Bad input is the coordinator's to report (exit 2), before any job is sent.
    await loadBlueprint(version.dir, settings.blueprint, version.buildDir);
    // Grading stays here: the expected state is computed from the full case by the task's code in
    // this process, and the splits (expected answers, the sealed test split) never enter the bundle.
    const environmentBundle = version.task.environmentModule ? await bundleEnvironment(version.task.environmentModule, version.buildDir, version.dir) : null;
    const expectedStateOf = await expectedStateReader(environmentBundle);
    const bundle = await bundling;
    if (bundle.bytes.length > MAX_BUNDLE_BYTES) {
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
      throw new AgentdevelError('QUEUE_BUNDLE_TOO_LARGE', `blueprints/${settings.blueprint} and rubrics/${settings.task} make a bundle of ${mb(bundle.bytes.length)}, above the limit of ${mb(MAX_BUNDLE_BYTES)}`);
    }
    const connected = await queue();
    const url = await remoting;
    const snapshot: Snapshot = { commit: bundle.commit, tree: bundle.tree, bundleKey: bundle.tree, bundleBytes: bundle.bytes.length, source: version.commit, remote: url ? { url, commit: version.commit } : null };
    const prepared: JobVersion = {
      schema: JOB_SCHEMA,
      snapshot,
      blueprint: settings.blueprint,
      task: settings.task,
      agentModel: settings.agentModel,
      callTimeoutMs: settings.callTimeoutMs,
      memoryMb: settings.memoryMb,
      isolation: settings.isolation,
      passEnv: [...settings.passEnv],
    };
    try {
      // Sent together, on one connection, so Redis takes them in this order: a worker that starts
      // later prepares this version (warm workers) and finds its bundle already there.
      await Promise.all([connected.putBundle(bundle.tree, bundle.bytes, BUNDLE_TTL_SECONDS), connected.putVersion(JSON.stringify(prepared), BUNDLE_TTL_SECONDS)]);
    } catch (error) {
      throw commandError(error);
    }
    const readResult = caseTrialResultReader();
    const runtimeOf = (afresh: boolean): Runtime => ({
      runCase: async (testCase, trial, sink) => {
        const outcome = await runOnWorker(connected, deps, sink, readResult, afresh, {
          schema: JOB_SCHEMA,
          snapshot,
          blueprint: settings.blueprint,
          task: settings.task,
          testCase: visibleCase(testCase, version.task.gradingPaths),
          trial,
          agentModel: settings.agentModel,
          callTimeoutMs: settings.callTimeoutMs,
          memoryMb: settings.memoryMb,
          isolation: settings.isolation,
          passEnv: [...settings.passEnv],
        });
        return outcome.observation === null ? outcome : { output: outcome.output, observation: { state: outcome.observation.state, expectedState: expectedStateOf(testCase) } };
      },
      close: async () => undefined,
    });
    return { runtime: runtimeOf(false), afresh: runtimeOf(true), concurrency: QUEUE_IN_FLIGHT };
  }

  return {
    ready: async () => {
      await queue();
    },
    start,
    withdraw: async () => (connectedQueue ? connectedQueue.withdraw() : 0),
    close: async () => {
      const connected = opening ? await opening.then((q) => q, () => null) : null;
      await connected?.close();
    },
  };
}

/**
 * One case-trial's result from the workers, and whether this run paid for it. A result an earlier
 * run left behind (a coordinator restarted) is reused, except an infrastructure error: the store
 * never reuses such a run either, so that case-trial runs again, once. `afresh` (a run asked to
 * be fresh) reuses none: a finished job of that id is removed, and the case-trial runs now.
 */
export async function collectCaseTrial(
  queue: CaseTrialQueue,
  job: CaseTrialJob,
  readResult: (value: unknown) => CaseTrialResult | null = caseTrialResultReader(),
  afresh = false,
): Promise<{ readonly result: CaseTrialResult; readonly paidHere: boolean }> {
  let collected: Collected;
  try {
    const { id, body } = serializedJob(job);
    collected = await queue.submit(id, body, { afresh });
    if (collected.earlier && readResult(collected.value)?.kind === 'infra_error') collected = await queue.submit(id, body, { afresh: true });
  } catch (error) {
    // A job BullMQ gave up on (a worker crashed on it, its checkout failed, its stalls ran out)
    // is an infrastructure error of this case-trial, never a fail.
    // A worker that refused the job for its tag holds another key: the whole run would meet it,
    // and no retry helps. A misconfiguration, said as one (exit 2), never a model outage.
    if (error instanceof JobGaveUp && error.message === KEY_MISMATCH_REASON) {
      throw new AgentdevelError('QUEUE_KEY_MISMATCH', `a worker refused a case-trial: the job's tag does not match that worker's ${QUEUE_KEY_VARIABLE}, so it was started with another key than this command (or the job was altered in Redis)`, { cause: error });
    }
    if (error instanceof JobGaveUp) throw new InfraError('agent', `on the workers: ${error.message}`, { cause: error });
    throw commandError(error);
  }
  const result = readResult(collected.value);
  if (!result) throw new InfraError('agent', 'a worker sent back something that is not a case-trial result (another agentdevel version?)');
  return { result, paidHere: !collected.earlier };
}

async function runOnWorker(
  queue: CaseTrialQueue,
  deps: QueueExecutorDeps,
  sink: TraceSink,
  readResult: (value: unknown) => CaseTrialResult | null,
  afresh: boolean,
  job: CaseTrialJob,
): Promise<CaseOutcome> {
  const { result, paidHere } = await collectCaseTrial(queue, job, readResult, afresh);
  // An earlier run already paid for (and recorded) the model calls of a result it left behind.
  if (paidHere) for (const call of result.usage) deps.ledger(call.role, call.model, call.usage);
  for (const event of result.events) sink.emit(event);
  if (result.kind === 'infra_error') throw new InfraError('agent', result.message);
  return { output: result.output, observation: result.observation as CaseOutcome['observation'] };
}
