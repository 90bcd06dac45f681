// What a worker does with one case-trial job: check the version out (kept warm by its content
// fingerprint, warm-checkouts.ts), start the blueprint's runtime for it (kept while jobs of that
// version come; the version published last is prepared before the first job is taken), run
// the case-trial with the runtimes as they are, sandbox rules included, and send back the trace
// events and the outcome. Grading stays with the coordinator; a worker holds no workspace state.
import { AsyncLocalStorage } from 'node:async_hooks';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { bundleEnvironment, loadBlueprint } from '../blueprint/load.ts';
import { startRuntime } from '../runtimes/index.ts';
import type { Runtime } from '../../domain/ports/runtime.ts';
import { systemClock, type Clock } from '../../domain/ports/clock.ts';
import type { Checkpoint } from '../../domain/ports/checkpoint.ts';
import { isAgentdevelError } from '../../domain/errors.ts';
import { InfraError } from '../../domain/ports/model.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { claudeEngines, type Cassette } from '../engines/claude.ts';
import { createModelPort } from '../engines/index.ts';
import { currentRoleFacts } from '../engines/runtime-facts.ts';
import { containment } from '../process/untrusted.ts';
import { launcher } from '../process/memory-limit.ts';
import type { Redactor } from '../../domain/environment.ts';
import { loadTask } from '../task/load.ts';
import { JobRefused, JsonText, type JobContext, type PrepareSource } from './bullmq.ts';
import { warmCheckouts } from './warm-checkouts.ts';
import { evictIdle } from './idle-eviction.ts';
import { openSharedPace } from './redis-pace.ts';
import type { QueueAddress } from '../../domain/queue-address.ts';
import { caseTrialJobReader, JOB_SCHEMA, jobVersionSchema, type CaseTrialResult, type JobVersion, type ModelCallUsage } from './job.ts';

export interface WorkerDeps {
  /** The worker's own environment: its credentials (for the agent role only) and what `passEnv` names. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where checkouts of snapshots are kept, one folder per content fingerprint. */
  readonly cacheDir: string;
  readonly redact: Redactor;
  readonly name: string;
  readonly cassette: Cassette;
  readonly clock: Clock;
  /** Case-trials the worker runs at once (a `command` runtime sizes its spawners by it). */
  readonly concurrency: number;
  /** The queue whose Redis keeps the pace of model calls shared with the coordinator and the other workers; null: this worker's own. */
  readonly sharedPaceAt: QueueAddress | null;
  /** The test hook's checkpoint: `worker-took-job` once a job is read and before it runs. */
  readonly checkpoint: Checkpoint;
  /** A line for the worker's log (what it checked out and prepared). */
  readonly note: (message: string) => void;
}

/** Runtimes kept at once; a worker serving many versions closes the least recently used. */
const KEPT_RUNTIMES = 4;

interface KeptRuntime {
  readonly started: Promise<Runtime>;
  /** The snapshot whose checkout it runs from. */
  readonly tree: string;
  readonly buildDir: string;
  inFlight: number;
  lastUsed: number;
}

export interface CaseTrialHandler {
  /** The result as JSON text, redacted. */
  handle(data: unknown, context: JobContext): Promise<JsonText>;
  /** Warms the worker before it takes a job; never fails (a failure is noted). */
  prepare(source: PrepareSource): Promise<void>;
  close(): Promise<void>;
}

export function caseTrialHandler(deps: WorkerDeps): CaseTrialHandler {
  const usageOfJob = new AsyncLocalStorage<ModelCallUsage[]>();
  // One pace with every process on the queue (the connection opens at the first model call).
  const sharedPace = deps.sharedPaceAt ? openSharedPace(deps.sharedPaceAt) : null;
  // Model calls are charged to the job they were made for; the coordinator writes the ledger.
  const claude = claudeEngines({
    env: deps.env,
    settings: { maxRetries: 4, timeoutMs: 600_000 },
    cassette: deps.cassette,
    ledger: (role, model, usage) => usageOfJob.getStore()?.push({ role, model, usage }),
    facts: currentRoleFacts(deps.clock),
    ...(sharedPace ? { pace: sharedPace.pace } : {}),
  });
  const runtimes = new Map<string, KeptRuntime>();
  const checkouts = warmCheckouts(
    deps.cacheDir,
    // A checkout removed takes the runtimes started on it along: all of them out of the map at
    // once, then closed; one that fails to close is said, and the others are closed all the same.
    async (tree) => {
      const started = [...runtimes].filter(([, kept]) => kept.tree === tree);
      for (const [key] of started) runtimes.delete(key);
      const closed = await Promise.allSettled(started.map(([, kept]) => closeKept(kept)));
      for (const result of closed) if (result.status === 'rejected') deps.note(`could not close a runtime of ${tree.slice(0, 12)}: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`);
    },
    deps.note,
  );

  /** The runtime of a job's version, counted in flight from the start (the caller lets it go): an eviction never closes it under a job. */
  async function runtimeFor(job: JobVersion, dir: string): Promise<KeptRuntime> {
    const key = JSON.stringify([job.snapshot.tree, job.blueprint, job.task, job.agentModel, job.callTimeoutMs, job.memoryMb, job.isolation, job.passEnv]);
    let kept = runtimes.get(key);
    if (!kept) {
      const buildDir = path.join(deps.cacheDir, 'build', `${job.snapshot.tree.slice(0, 12)}-${runtimes.size}-${systemClock.now().getTime()}`);
      const started = (async () => {
        const blueprint = await loadBlueprint(dir, job.blueprint, buildDir);
        const task = await loadTask(dir, job.task);
        const environmentBundle = task.environmentModule ? await bundleEnvironment(task.environmentModule, buildDir, dir) : null;
        const roles = { agent: job.agentModel, critic: 'mock', diagnostician: 'mock', synthesizer: 'mock', judge: 'mock', writer: 'mock' };
        return startRuntime({
          blueprint,
          environmentBundle,
          model: createModelPort(roles, { claude }),
          agentModel: job.agentModel,
          callTimeoutMs: job.callTimeoutMs,
          memoryMb: job.memoryMb,
          isolation: job.isolation,
          passEnv: job.passEnv,
          // The job's case has none of them already (the coordinator stripped it); the task says which they are.
          gradingPaths: task.gradingPaths,
          parentEnv: deps.env,
          concurrency: deps.concurrency,
          gradesHere: false,
        });
      })();
      const fresh: KeptRuntime = { started, tree: job.snapshot.tree, buildDir, inFlight: 1, lastUsed: systemClock.now().getTime() };
      runtimes.set(key, fresh);
      started.catch(() => runtimes.delete(key));
      try {
        await evictIdle(runtimes, KEPT_RUNTIMES, (_, old) => closeKept(old));
      } catch (error) {
        fresh.inFlight -= 1;
        throw error;
      }
      return fresh;
    }
    kept.inFlight += 1;
    kept.lastUsed = systemClock.now().getTime();
    return kept;
  }

  async function closeKept(kept: KeptRuntime): Promise<void> {
    try {
      const runtime = await kept.started.then((r) => r, () => null);
      await runtime?.close();
    } finally {
      await rm(kept.buildDir, { recursive: true, force: true });
    }
  }

  const readJob = caseTrialJobReader();

  async function handle(data: unknown, context: JobContext): Promise<JsonText> {
    const job = readJob(data);
    if (!job) {
      const version = (data as { schema?: unknown } | null)?.schema;
      throw new JobRefused(version !== JOB_SCHEMA ? `a job of schema ${String(version)}; this worker takes schema ${JOB_SCHEMA} (run the same agentdevel version as the coordinator)` : 'not a case-trial job');
    }
    await deps.checkpoint('worker-took-job');
    const lease = await checkouts.take(job, (key) => context.bundle(key));
    let kept: KeptRuntime | null = null;
    let runtime: Runtime;
    try {
      kept = await runtimeFor(job, lease.dir);
      runtime = await kept.started;
    } catch (error) {
      if (kept) kept.inFlight -= 1;
      lease.release();
      // A blueprint or task that does not load fails on every worker alike: retrying cannot help.
      if (isAgentdevelError(error) && error.exitCode === 2) throw new JobRefused(error.message, { cause: error });
      throw error;
    }
    const events: TraceEvent[] = [];
    const usage: ModelCallUsage[] = [];
    const held = kept;
    const sink = { emit: (event: TraceEvent) => events.push(event) };
    try {
      // Only an agent on a model makes calls to charge to this job: the others run without the
      // async context (whose hooks would cost every promise of the process).
      const outcome = await (job.agentModel === 'mock'
        ? runtime.runCase(job.testCase, job.trial, sink)
        : usageOfJob.run(usage, () => runtime.runCase(job.testCase, job.trial, sink)));
      return redacted({ kind: 'ran', events, output: outcome.output, observation: outcome.observation, usage, worker: deps.name });
    } catch (error) {
      if (!(error instanceof InfraError)) throw error;
      return redacted({ kind: 'infra_error', events, message: error.message, usage, worker: deps.name });
    } finally {
      held.inFlight -= 1;
      lease.release();
    }
  }

  /**
   * Before the first job: the containment probes this process makes once, and the version the
   * coordinator published last (most often the line's tip), checked out with its runtime and
   * that runtime's spawners started.
   * A failure here is said and left to the jobs, which prepare what they need anyway.
   */
  async function prepare(source: PrepareSource): Promise<void> {
    const probes = Promise.all([containment(), launcher()]);
    const version = jobVersionSchema.safeParse(await source.lastVersion());
    if (version.success) {
      const lease = await checkouts.take(version.data, (key) => source.bundle(key));
      try {
        const kept = await runtimeFor(version.data, lease.dir);
        try {
          // Its spawners too: the first job starts nothing.
          await (await kept.started).prepare?.();
        } finally {
          kept.inFlight -= 1;
        }
        deps.note(`prepared ${version.data.snapshot.tree.slice(0, 12)} (${version.data.snapshot.source.slice(0, 12)}), the version published last`);
      } finally {
        lease.release();
      }
    }
    await probes;
  }

  // Secrets of the worker's environment never leave it, in a trace or an output: the result is
  // redacted as the text that travels (JSON-escaped secrets included, as the redactor knows them).
  function redacted(result: CaseTrialResult): JsonText {
    const text = JSON.stringify(result);
    const clean = deps.redact(text);
    // Something was redacted: the text must still be JSON (it throws, as a failed job, if not).
    if (clean !== text) JSON.parse(clean);
    return new JsonText(clean);
  }

  return {
    handle,
    prepare: (source) =>
      prepare(source).catch((error: unknown) => deps.note(`could not prepare the version published last: ${error instanceof Error ? error.message : String(error)}`)),
    close: async () => {
      const all = [...runtimes.values()];
      runtimes.clear();
      try {
        await Promise.all(all.map(closeKept));
      } finally {
        await sharedPace?.close();
      }
    },
  };
}
