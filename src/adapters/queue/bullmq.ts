// The one module that imports bullmq (house rule 6). BullMQ does the queueing: delivery, locks,
// stalled-job recovery when a worker dies, retries with backoff. agentdevel adds only what a
// case-trial needs on top: content-addressed job ids, bundles of the version under test, and
// bounds on every wait, so a lost Redis ends a command (exit 3) instead of hanging it.
import { isIP } from 'node:net';
import { Job, Queue, QueueEvents, UnrecoverableError, Worker, type ConnectionOptions, type JobJsonRaw, type RedisClient } from 'bullmq';
import { jobTag, jobTagHolds, resultTag, resultTagHolds } from './queue-key.ts';
import type { QueueAddress } from './url.ts';
import { systemClock } from '../../domain/ports/clock.ts';

export const QUEUE_NAME = 'agentdevel-case-trials';
const BUNDLE_PREFIX = 'agentdevel:bundle:';

/** Redis could not be reached (at start), or was lost for longer than the grace period (mid-run). */
export class QueueUnreachable extends Error {
  constructor(
    readonly shown: string,
    reason: string,
  ) {
    super(`the queue at ${shown} ${reason}`);
    this.name = 'QueueUnreachable';
  }
}

/** A job BullMQ gave up on (its attempts, or its stalls, are used up). */
export class JobGaveUp extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'JobGaveUp';
  }
}

/** No worker answered any job for longer than the idle limit. */
export class NoWorkerAnswered extends Error {
  constructor(readonly idleMs: number) {
    super(`no worker took or finished a case-trial for ${Math.round(idleMs / 1000)} s`);
    this.name = 'NoWorkerAnswered';
  }
}

/** A job a worker must not retry: it cannot succeed anywhere (a malformed job, a job of another version). */
export class JobRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobRefused';
  }
}

/** Times a case-trial whose result was refused (not tagged with the key for this job) is run again before it is given up. */
const RERUNS_OF_REFUSED = 2;

/**
 * What Redis holds for a job, and for its result: the exact JSON text and its tag under the
 * shared key (see queue-key.ts). The text is checked as written, so nothing is parsed before it
 * is proven.
 */
interface Tagged {
  readonly body: string;
  readonly tag: string;
}

const isTagged = (value: unknown): value is Tagged =>
  value !== null && typeof value === 'object' && typeof (value as Tagged).body === 'string' && typeof (value as Tagged).tag === 'string';

/** Once a side of the queue is closing, its connections stop reconnecting, so nothing lingers. */
interface Lifetime {
  closing: boolean;
}

function connection(address: QueueAddress, lifetime: Lifetime): ConnectionOptions {
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username === null ? {} : { username: address.username }),
    ...(address.password === null ? {} : { password: address.password }),
    // TLS checks the server's certificate against Node's CAs (add a private CA with
    // NODE_EXTRA_CA_CERTS); the name sent is the host's, unless it is an IP address (RFC 6066).
    ...(address.tls ? { tls: isIP(address.host) === 0 ? { servername: address.host } : {} } : {}),
    connectTimeout: 5000,
    // Reconnect quickly and keep trying: a worker outlives a Redis restart; a coordinator's
    // own watchdog decides when a loss has lasted too long.
    retryStrategy: (times: number) => (lifetime.closing ? null : Math.min(200 * times, 2000)),
  };
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function within<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Remembers the last connection error of a BullMQ object, to say why Redis did not answer. */
function lastErrorOf(emitter: { on(event: 'error', listener: (error: Error) => void): unknown }): () => string | null {
  let last: string | null = null;
  emitter.on('error', (error) => (last = error.message));
  return () => last;
}

async function ping(client: Promise<RedisClient>, address: QueueAddress, ms: number, why: () => string | null): Promise<void> {
  await within(
    client.then((c) => c.runCommand('ping', [])),
    ms,
    () => new QueueUnreachable(address.shown, `did not answer within ${Math.round(ms / 1000)} s${why() ? ` (${why()})` : ''}`),
  ).catch((error: unknown) => {
    if (error instanceof QueueUnreachable) throw error;
    throw new QueueUnreachable(address.shown, `cannot be reached: ${error instanceof Error ? error.message : String(error)}`);
  });
}

/** Closes a BullMQ object within a bound; past it (Redis gone), drops its connections. */
async function closeWithin(closable: { close(): Promise<void>; disconnect?: () => Promise<void> }, lifetime: Lifetime, ms: number): Promise<void> {
  lifetime.closing = true;
  try {
    await within(closable.close(), ms, () => new Error('close timed out'));
  } catch {
    // Closing is best effort once Redis is gone: its connections no longer reconnect (above), and are dropped here.
    await within(closable.disconnect?.() ?? Promise.resolve(), ms, () => new Error('disconnect timed out')).catch(() => undefined);
  }
}

export interface CoordinatorSettings {
  /** How long Redis may be unreachable mid-run before the command gives up (exit 3). */
  readonly lostAfterMs: number;
  /** How long pending jobs may see no worker activity at all before the command gives up. */
  readonly idleLimitMs: number;
  /** Attempts of a job that fails for infrastructure reasons (a worker's fetch, a crash) before it is given up. */
  readonly attempts: number;
  /** How long finished jobs stay in Redis, so a restarted coordinator collects them instead of running them again. */
  readonly keepResultsSeconds: number;
}

/** The coordinator's side of the queue: enqueue case-trials, publish bundles, collect results. */
export interface CaseTrialQueue {
  /**
   * Enqueues a job (or finds the one of the same id) and resolves with its result, and whether
   * that result was finished by an earlier submission (a run before a crash). With `afresh`, a
   * finished job of that id is removed first, so the case-trial runs again.
   */
  submit(jobId: string, data: unknown, options?: { readonly afresh?: boolean }): Promise<Collected>;
  hasBundle(key: string): Promise<boolean>;
  putBundle(key: string, bytes: Buffer, ttlSeconds: number): Promise<void>;
  workerCount(): Promise<number>;
  close(): Promise<void>;
}

export interface Collected {
  readonly value: unknown;
  /** True when the job was created before this submission: its result (and its cost) came from an earlier run. */
  readonly earlier: boolean;
}

/** What a job returns: the handler's result and when the job was created (by a coordinator). */
interface Answer {
  readonly value: unknown;
  readonly createdAt: number;
}

/** A result, once its tag proves a holder of the key wrote it for this job; else why it is refused. */
function unwrap(key: Buffer, jobId: string, returned: unknown, submittedAt: number): Collected | string {
  if (!isTagged(returned)) return 'a result that is not a tagged entry';
  if (!resultTagHolds(key, jobId, returned.body, returned.tag)) return 'a result whose tag does not match (altered in Redis, or written by a worker with another key)';
  let answer: Partial<Answer>;
  try {
    answer = JSON.parse(returned.body) as Partial<Answer>;
  } catch {
    return 'a tagged result that is not JSON';
  }
  if (answer === null || typeof answer !== 'object' || typeof answer.createdAt !== 'number') return 'a tagged result without its creation time';
  return { value: answer.value, earlier: answer.createdAt < submittedAt };
}

/** A result was refused: the case-trial is run again, and given up after a few refusals. */
class ResultRefused extends Error {}

export async function openCaseTrialQueue(address: QueueAddress, settings: CoordinatorSettings, key: Buffer): Promise<CaseTrialQueue> {
  const lifetime: Lifetime = { closing: false };
  const queue = new Queue(QUEUE_NAME, { connection: connection(address, lifetime) });
  const events = new QueueEvents(QUEUE_NAME, { connection: connection(address, lifetime) });
  // Connection errors are seen by the watchdog below; unhandled 'error' events would crash the process.
  const queueError = lastErrorOf(queue);
  events.on('error', () => undefined);
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  try {
    await ping(queue.client, address, 5000, queueError);
    await within(events.waitUntilReady(), 5000, () => new QueueUnreachable(address.shown, 'did not answer within 5 s'));
  } catch (error) {
    await Promise.all([closeWithin(events, lifetime, 1000), closeWithin(queue, lifetime, 1000)]);
    throw error;
  }

  // One watchdog for every pending job: Redis lost too long, or no worker activity too long.
  let failure: Error | null = null;
  const waiting = new Set<(error: Error) => void>();
  let lastActivity = systemClock.now().getTime();
  let lastReachable = systemClock.now().getTime();
  for (const event of ['active', 'completed', 'failed', 'stalled', 'progress', 'waiting'] as const) events.on(event, () => (lastActivity = systemClock.now().getTime()));
  const watchdog = setInterval(() => {
    void (async () => {
      const statuses = await Promise.all([queue.client, events.client]).then(
        (clients) => clients.map((c) => c.status),
        () => ['closed'],
      );
      const now = systemClock.now().getTime();
      if (statuses.every((s) => s === 'ready')) lastReachable = now;
      if (waiting.size === 0) lastActivity = now;
      failure ??=
        now - lastReachable > settings.lostAfterMs
          ? new QueueUnreachable(address.shown, `was lost for more than ${Math.round(settings.lostAfterMs / 1000)} s`)
          : now - lastActivity > settings.idleLimitMs
            ? new NoWorkerAnswered(now - lastActivity)
            : null;
      if (failure) for (const reject of waiting) reject(failure);
    })();
  }, 500);

  async function submit(jobId: string, data: unknown, options: { readonly afresh?: boolean } = {}): Promise<Collected> {
    if (failure) throw failure;
    if (options.afresh) await (await Job.fromId(queue, jobId))?.remove();
    let cancel: ((error: Error) => void) | null = null;
    const stop = new Promise<never>((_, reject) => {
      cancel = reject;
      waiting.add(reject);
    });
    try {
      return await Promise.race([stop, collect(jobId, data)]);
    } finally {
      if (cancel) waiting.delete(cancel);
    }
  }

  async function collect(jobId: string, data: unknown): Promise<Collected> {
    const body = JSON.stringify(data);
    const entry: Tagged = { body, tag: jobTag(key, jobId, body) };
    for (let refusals = 0; ; refusals += 1) {
      try {
        return await collectOnce(jobId, entry);
      } catch (error) {
        if (!(error instanceof ResultRefused)) throw error;
        if (refusals >= RERUNS_OF_REFUSED) throw new JobGaveUp(`${error.message}; refused ${refusals + 1} times`);
        // The refused result is dropped, and the case-trial runs again.
        await (await Job.fromId(queue, jobId))?.remove();
      }
    }
  }

  async function collectOnce(jobId: string, entry: Tagged): Promise<Collected> {
    const submittedAt = systemClock.now().getTime();
    const checked = (returned: unknown): Collected => {
      const collected = unwrap(key, jobId, returned, submittedAt);
      if (typeof collected === 'string') throw new ResultRefused(`refused ${collected}`);
      return collected;
    };
    const add = () =>
      queue.add('case-trial', entry, {
        jobId,
        attempts: settings.attempts,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: settings.keepResultsSeconds },
        removeOnFail: { age: settings.keepResultsSeconds },
      });
    try {
      // A job of this id that already finished (a run before a crash) answers at once: its result is collected, not run again.
      return checked(await (await add()).waitUntilFinished(events));
    } catch (error) {
      if (error instanceof ResultRefused) throw error;
      if (failure) throw failure;
      // A job given up by an earlier run (say, one that lost its workers) is tried afresh, once.
      const earlier = await Job.fromId(queue, jobId);
      if (!earlier || earlier.timestamp >= submittedAt) throw new JobGaveUp(reasonOf(error));
      await earlier.remove();
      try {
        return checked(await (await add()).waitUntilFinished(events));
      } catch (again) {
        if (again instanceof ResultRefused) throw again;
        if (failure) throw failure;
        throw new JobGaveUp(reasonOf(again));
      }
    }
  }

  return {
    submit,
    hasBundle: async (key) => (await (await queue.client).runCommand('exists', [BUNDLE_PREFIX + key])) === 1,
    putBundle: async (key, bytes, ttlSeconds) => {
      await (await queue.client).set(BUNDLE_PREFIX + key, bytes.toString('base64'), { EX: ttlSeconds });
    },
    workerCount: () => queue.getWorkersCount(),
    close: async () => {
      clearInterval(watchdog);
      await Promise.all([closeWithin(events, lifetime, 2000), closeWithin(queue, lifetime, 2000)]);
    },
  };
}

export interface WorkerSettings {
  readonly concurrency: number;
  /** How long a job's lock lasts without renewal: a killed worker's job is taken over after about this long. */
  readonly lockDurationMs: number;
  /** How often workers look for jobs whose lock expired (stalled jobs). */
  readonly stalledIntervalMs: number;
  /** Stalls a job may have (its worker died) before it is given up as an infrastructure error. */
  readonly maxStalledCount: number;
}

export interface JobContext {
  readonly jobId: string;
  readonly attempt: number;
  /** Reads a bundle the coordinator published; null when it is not (or no longer) in Redis. */
  bundle(key: string): Promise<Buffer | null>;
}

export interface CaseTrialWorker {
  /** Settles when the worker has stopped. */
  readonly stopped: Promise<void>;
  close(): Promise<void>;
}

/**
 * A worker that fails a malformed entry once, with its reason, instead of stalling on it: BullMQ
 * parses a job's fields before any processor sees it, and a parse error there leaves the job
 * locked until its lock expires, to be taken again and again.
 */
class TolerantWorker extends Worker {
  protected override createJob(raw: JobJsonRaw, jobId: string): Job {
    try {
      return super.createJob(raw, jobId);
    } catch (error) {
      const reason = `a malformed entry: ${reasonOf(error)}`;
      const { parent: _parent, ...fields } = raw;
      return super.createJob({ ...fields, data: JSON.stringify({ malformed: reason }), opts: '{}', progress: '0' }, jobId);
    }
  }
}

/** Starts taking case-trial jobs; `handle` returns the result or throws (retried) or throws JobRefused (not retried). */
export async function startCaseTrialWorker(
  address: QueueAddress,
  settings: WorkerSettings,
  key: Buffer,
  handle: (data: unknown, context: JobContext) => Promise<unknown>,
  onError: (error: Error) => void,
): Promise<CaseTrialWorker> {
  // A probe first, so an unreachable Redis is one clear error at start, not a worker retrying forever.
  const probeLifetime: Lifetime = { closing: false };
  const probe = new Queue(QUEUE_NAME, { connection: connection(address, probeLifetime) });
  const probeError = lastErrorOf(probe);
  try {
    await ping(probe.client, address, 5000, probeError);
  } finally {
    await closeWithin(probe, probeLifetime, 2000);
  }
  const lifetime: Lifetime = { closing: false };
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const worker: Worker = new TolerantWorker(
    QUEUE_NAME,
    async (job) => {
      const jobId = job.id ?? '';
      // Failed once, with its reason, and never retried: no other worker would do better.
      const malformed = (job.data as { malformed?: unknown } | null)?.malformed;
      if (typeof malformed === 'string') throw new UnrecoverableError(malformed);
      if (!isTagged(job.data)) throw new UnrecoverableError('a malformed entry: not a tagged case-trial job');
      if (!jobTagHolds(key, jobId, job.data.body, job.data.tag)) {
        throw new UnrecoverableError('a job whose tag does not match this worker\'s AGENTDEVEL_QUEUE_KEY (written without the key, altered in Redis, or this worker has another key)');
      }
      let data: unknown;
      try {
        data = JSON.parse(job.data.body);
      } catch {
        throw new UnrecoverableError('a malformed entry: a tagged job that is not JSON');
      }
      const context: JobContext = {
        jobId,
        attempt: job.attemptsMade + 1,
        bundle: async (bundleKey) => {
          const text = await (await worker.client).get(BUNDLE_PREFIX + bundleKey);
          return text === null ? null : Buffer.from(text, 'base64');
        },
      };
      try {
        // The job's creation time travels with its result, so a coordinator tells a result an
        // earlier run left behind from its own without another round trip.
        const answer: Answer = { value: await handle(data, context), createdAt: job.timestamp };
        const body = JSON.stringify(answer);
        const tagged: Tagged = { body, tag: resultTag(key, jobId, body) };
        return tagged;
      } catch (error) {
        if (error instanceof JobRefused) throw new UnrecoverableError(error.message);
        throw error;
      }
    },
    {
      connection: connection(address, lifetime),
      concurrency: settings.concurrency,
      lockDuration: settings.lockDurationMs,
      stalledInterval: settings.stalledIntervalMs,
      maxStalledCount: settings.maxStalledCount,
    },
  );
  worker.on('error', onError);
  worker.on('closed', () => stop());
  return {
    stopped,
    close: async () => {
      await closeWithin(worker, lifetime, 10_000);
      stop();
    },
  };
}
