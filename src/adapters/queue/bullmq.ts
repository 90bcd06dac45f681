// The one module that imports bullmq (house rule 6). BullMQ does the queueing: delivery, locks,
// stalled-job recovery when a worker dies, retries with backoff. agentdevel adds only what a
// case-trial needs on top: content-addressed job ids, bundles of the version under test, and
// bounds on every wait, so a lost Redis ends a command (exit 3) instead of hanging it. The
// coordinator's batching and collecting live in collector.ts; here is what touches BullMQ: the
// link it uses (addBulk, a pipelined lookup of job states, one blocking reader of the queue's
// event stream instead of QueueEvents and a listener per job) and the worker.
import { Queue, UnrecoverableError, WaitingError, Worker, type ConnectionOptions, type Job, type JobJsonRaw, type RedisClient } from 'bullmq';
import { isTagged, jobTagHolds, KEY_MISMATCH_REASON, resultTag, versionTagHolds, type Tagged } from './queue-key.ts';
import type { QueueAddress } from '../../domain/queue-address.ts';
import { redisEndpoint } from './redis-endpoint.ts';
import { startCollector, type CaseTrialQueue, type CoordinatorLink, type CoordinatorSettings, type JobState, type QueueEvent } from './collector.ts';
import { JobRefused, QueueUnreachable } from './errors.ts';
import { timeoutReason } from './tls-probe.ts';

export { JobGaveUp, JobRefused, NoWorkerAnswered, QueueUnreachable } from './errors.ts';
export type { CaseTrialQueue, Collected, CoordinatorSettings } from './collector.ts';

export const QUEUE_NAME = 'agentdevel-case-trials';
const BUNDLE_PREFIX = 'agentdevel:bundle:';
/** The version the coordinator published last, tagged: what a worker prepares as it starts. */
const LAST_VERSION_KEY = 'agentdevel:last-version';

/** Once a side of the queue is closing, its connections stop reconnecting, so nothing lingers. */
interface Lifetime {
  closing: boolean;
}

function connection(address: QueueAddress, lifetime: Lifetime): ConnectionOptions {
  return {
    ...redisEndpoint(address),
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

/** Thrown by `within` when the wait ran out. */
class Unanswered extends Error {}

async function ping(client: Promise<RedisClient>, address: QueueAddress, ms: number, why: () => string | null): Promise<void> {
  await within(client.then((c) => c.runCommand('ping', [])), ms, () => new Unanswered()).catch(async (error: unknown) => {
    if (error instanceof Unanswered) {
      // Over TLS a silent server is most often one that does not speak TLS: say so.
      const reason = await timeoutReason(address, why());
      throw new QueueUnreachable(address.shown, `did not answer within ${Math.round(ms / 1000)} s${reason ? ` (${reason})` : ''}`);
    }
    throw new QueueUnreachable(address.shown, `cannot be reached: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
}

/**
 * A Queue whose connection stays quiet once closed. BullMQ removes every listener of its
 * connection at close, yet a connection closed while still connecting (say, a TLS handshake a
 * plain-text server never finishes) rejects its start afterwards and emits that as 'error': with
 * no listener left, Node would end the process. Once closed, that late error is dropped.
 */
class CaseTrialQueueClient extends Queue {
  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      this.connection.on('error', () => undefined);
    }
  }
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

/** Events read from the stream at once, at most. */
const EVENTS_PER_READ = 1000;

/** The fields of a stream entry ([name, value, name, value, …]) as the event the collector acts on. */
function queueEvent(fields: readonly string[]): QueueEvent {
  const field = (name: string): string | null => {
    for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1] as string;
    return null;
  };
  const event = field('event');
  const jobId = field('jobId');
  if (jobId === null) return { kind: 'other' };
  // BullMQ writes these two only when a job is done with: completed, or failed for good (its
  // attempts or stalls used up); a failure to be retried goes back to waiting instead.
  if (event === 'completed') return { kind: 'completed', jobId, returnvalue: field('returnvalue') ?? 'null' };
  if (event === 'failed') return { kind: 'failed', jobId, failedReason: field('failedReason') ?? 'failed' };
  if (event === 'removed') return { kind: 'removed', jobId };
  return { kind: 'other' };
}

export async function openCaseTrialQueue(address: QueueAddress, settings: CoordinatorSettings, key: Buffer, note?: (message: string) => void): Promise<CaseTrialQueue> {
  const lifetime: Lifetime = { closing: false };
  const queue = new CaseTrialQueueClient(QUEUE_NAME, { connection: connection(address, lifetime) });
  // Connection errors are seen by the collector's watchdog; unhandled 'error' events would crash the process.
  const queueError = lastErrorOf(queue);
  let reader: RedisClient | null = null;
  const closeAll = async (ms: number) => {
    lifetime.closing = true;
    reader?.disconnect();
    await closeWithin(queue, lifetime, ms);
  };
  try {
    await ping(queue.client, address, 5000, queueError);
    // Its own connection: a blocking read holds the connection it is sent on.
    reader = (await queue.client).duplicate();
    const readerError = lastErrorOf(reader);
    await ping(Promise.resolve(reader), address, 5000, readerError);
  } catch (error) {
    await closeAll(1000);
    throw error;
  }
  const client = await queue.client;
  const blocking = reader;
  const jobOptions = {
    attempts: settings.attempts,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: settings.keepResultsSeconds },
    removeOnFail: { age: settings.keepResultsSeconds },
  };
  const link: CoordinatorLink = {
    shown: address.shown,
    states: async (ids) => {
      if (ids.length === 0) return [];
      const pipeline = client.pipeline();
      for (const id of ids) pipeline.runCommand('hmget', [queue.toKey(id), 'timestamp', 'finishedOn', 'returnvalue', 'failedReason']);
      const replies = (await pipeline.exec()) ?? [];
      return ids.map((_, i): JobState | null => {
        const [error, fields] = replies[i] ?? [new Error('no reply'), null];
        if (error) throw error;
        const [timestamp, finishedOn, returnvalue, failedReason] = fields as Array<string | null>;
        if (timestamp === null || timestamp === undefined) return null;
        return { createdAt: Number(timestamp), finished: finishedOn !== null && finishedOn !== undefined, returnvalue: returnvalue ?? null, failedReason: failedReason ?? null };
      });
    },
    addAll: async (jobs) => {
      await queue.addBulk(jobs.map((job) => ({ name: 'case-trial', data: job.entry, opts: { ...jobOptions, jobId: job.id } })));
    },
    remove: async (id) => {
      await queue.remove(id);
    },
    // Looked at, then removed: a job a worker takes in between is locked, and its removal refused.
    removeWaiting: async (ids) => {
      const removed = await Promise.all(
        ids.map(async (id) => {
          const state = await queue.getJobState(id).catch(() => 'unknown');
          if (state !== 'waiting' && state !== 'prioritized' && state !== 'delayed') return 0;
          return queue.remove(id).catch(() => 0);
        }),
      );
      return removed.reduce((sum: number, one) => sum + one, 0);
    },
    eventsEnd: async () => ((await client.runCommand('xrevrange', [queue.keys.events, '+', '-', 'COUNT', 1])) as Array<[string, string[]]>)[0]?.[0] ?? '0-0',
    eventsAfter: async (after, blockMs) => {
      const reply = (await blocking.xread([{ key: queue.keys.events as string, id: after }], { BLOCK: blockMs, COUNT: EVENTS_PER_READ })) as Array<[string, Array<[string, string[]]>]> | null;
      const entries = reply?.[0]?.[1] ?? [];
      return { position: entries.at(-1)?.[0] ?? after, events: entries.map(([, fields]) => queueEvent(fields)) };
    },
    reachable: async () => client.status === 'ready' && blocking.status === 'ready',
    hasBundle: async (bundleKey) => (await client.runCommand('exists', [BUNDLE_PREFIX + bundleKey])) === 1,
    putBundle: async (bundleKey, bytes, ttlSeconds) => {
      await client.set(BUNDLE_PREFIX + bundleKey, bytes.toString('base64'), { EX: ttlSeconds });
    },
    putVersion: async (tagged, ttlSeconds) => {
      await client.set(LAST_VERSION_KEY, tagged, { EX: ttlSeconds });
    },
    // Workers of this queue on this database: Redis lists the clients of all its databases.
    workerCount: async () => (await queue.getWorkers()).filter((worker) => worker.db === undefined || Number(worker.db) === address.db).length,
    close: () => closeAll(2000),
  };
  try {
    return await startCollector(link, settings, key, note);
  } catch (error) {
    await closeAll(1000);
    throw error;
  }
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

/** What a worker may prepare from before it takes a job: the version published last, and the bundles. */
export interface PrepareSource {
  /** The version the coordinator published last, parsed, once its tag proves a key holder wrote it; null when there is none (or it is not proven). */
  lastVersion(): Promise<unknown>;
  bundle(key: string): Promise<Buffer | null>;
}

export interface CaseTrialWorker {
  /** Settles when the worker has stopped. */
  readonly stopped: Promise<void>;
  close(): Promise<void>;
  /**
   * For a worker about to end (SIGTERM, Ctrl-C): takes no more jobs, and puts the ones it holds
   * back in the queue, for another worker to take now instead of once their locks expire. A job
   * handed back counts neither an attempt nor a stall. Resolves with how many went back.
   */
  handBack(): Promise<number>;
}

/**
 * A worker that fails a malformed entry once, with its reason, instead of stalling on it: BullMQ
 * parses a job's fields before any processor sees it, and a parse error there leaves the job
 * locked until its lock expires, to be taken again and again.
 */
class TolerantWorker extends Worker {
  /** Set as the worker hands its jobs back: it takes no more. */
  handingBack = false;
  /** Requests for a job sent and not answered yet: a job they bring after a hand-back began goes back too. */
  fetching = 0;

  protected override async moveToActive(client: RedisClient, token: string, name?: string): Promise<Job> {
    if (this.handingBack) return undefined as unknown as Job;
    this.fetching += 1;
    try {
      return await super.moveToActive(client, token, name);
    } finally {
      this.fetching -= 1;
    }
  }

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

/** A handler's result already as JSON text (say, redacted as text): it travels as is, not serialized again. */
export class JsonText {
  constructor(readonly json: string) {}
}

/**
 * Starts taking case-trial jobs; `handle` returns the result (a value, or its JSON text) or
 * throws (retried) or throws JobRefused (not retried).
 */
export async function startCaseTrialWorker(
  address: QueueAddress,
  settings: WorkerSettings,
  key: Buffer,
  handle: (data: unknown, context: JobContext) => Promise<unknown>,
  onError: (error: Error) => void,
  prepare: (source: PrepareSource) => Promise<void> = async () => undefined,
): Promise<CaseTrialWorker> {
  // A probe first, so an unreachable Redis is one clear error at start, not a worker retrying forever.
  const probeLifetime: Lifetime = { closing: false };
  const probe = new CaseTrialQueueClient(QUEUE_NAME, { connection: connection(address, probeLifetime) });
  const probeError = lastErrorOf(probe);
  try {
    await ping(probe.client, address, 5000, probeError);
    // Warm before the first job: what the worker prepares is not paid by a run's first jobs.
    const client = await probe.client;
    await prepare({
      lastVersion: async () => {
        const text = await client.get(LAST_VERSION_KEY);
        if (text === null) return null;
        let tagged: unknown;
        try {
          tagged = JSON.parse(text);
        } catch {
          return null;
        }
        return isTagged(tagged) && versionTagHolds(key, tagged.body, tagged.tag) ? (JSON.parse(tagged.body) as unknown) : null;
      },
      bundle: async (bundleKey) => {
        const text = await client.get(BUNDLE_PREFIX + bundleKey);
        return text === null ? null : Buffer.from(text, 'base64');
      },
    });
  } finally {
    await closeWithin(probe, probeLifetime, 2000);
  }
  const lifetime: Lifetime = { closing: false };
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  /** The jobs this worker runs, by the token of their locks (what handing them back needs). */
  const held = new Map<string, Job>();
  /** Jobs being handed back, and how many went. */
  const givingBack = new Set<Promise<void>>();
  let handedBack = 0;
  const giveBack = (job: Job, token: string) => {
    const moving = job.moveToWait(token).then(
      () => void (handedBack += 1),
      () => undefined,
    );
    givingBack.add(moving);
    return moving;
  };
  const worker = new TolerantWorker(
    QUEUE_NAME,
    async (job, token) => {
      const jobId = job.id ?? '';
      // Without its lock's token a job cannot be handed back safely; BullMQ always gives one.
      if (token === undefined) return processJob(job, jobId);
      // Taken as the worker hands its jobs back (a request sent before): back it goes, unrun,
      // and BullMQ records nothing for it (a WaitingError leaves a job where it was moved).
      if (worker.handingBack) {
        await giveBack(job, token);
        throw new WaitingError();
      }
      held.set(token, job);
      try {
        return await processJob(job, jobId);
      } finally {
        held.delete(token);
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
  async function processJob(job: Job, jobId: string): Promise<Tagged> {
    // Failed once, with its reason, and never retried: no other worker would do better.
    const malformed = (job.data as { malformed?: unknown } | null)?.malformed;
    if (typeof malformed === 'string') throw new UnrecoverableError(malformed);
    if (!isTagged(job.data)) throw new UnrecoverableError('a malformed entry: not a tagged case-trial job');
    if (!jobTagHolds(key, jobId, job.data.body, job.data.tag)) {
      // Said in the worker's log too: its operator is the one who can fix the key.
      onError(new Error(`refused job ${jobId}: ${KEY_MISMATCH_REASON}`));
      throw new UnrecoverableError(KEY_MISMATCH_REASON);
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
      const value = await handle(data, context);
      const json = value instanceof JsonText ? value.json : JSON.stringify(value ?? null);
      // The answer the collector reads: { value, createdAt }.
      const body = `{"value":${json},"createdAt":${Number(job.timestamp)}}`;
      const tagged: Tagged = { body, tag: resultTag(key, jobId, body) };
      return tagged;
    } catch (error) {
      if (error instanceof JobRefused) throw new UnrecoverableError(error.message);
      throw error;
    }
  }
  worker.on('error', onError);
  worker.on('closed', () => stop());
  let handing: Promise<number> | null = null;
  return {
    stopped,
    close: async () => {
      await closeWithin(worker, lifetime, 10_000);
      stop();
    },
    handBack: () =>
      (handing ??= (async () => {
        // No new job (the running ones are not waited for), then each held one back to waiting.
        worker.handingBack = true;
        await worker.pause(true).catch(() => undefined);
        for (const [token, job] of held) void giveBack(job, token);
        held.clear();
        // Requests already sent may still bring jobs: the processor gives those back; wait for
        // them (a little: the caller's bound ends the process anyway).
        for (let waited = 0; worker.fetching > 0 && waited < 1000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
        await new Promise((resolve) => setTimeout(resolve, 20));
        await Promise.all(givingBack);
        return handedBack;
      })()),
  };
}
