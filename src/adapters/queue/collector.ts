// The coordinator's side of the queue, apart from BullMQ itself (bullmq.ts hands it a link).
// Case-trials go out in batches: the jobs submitted in one turn of the event loop are looked up
// in one round trip (a result an earlier run left behind is collected, not run again) and the
// new ones added in one more (addBulk). Results come back through one reader of the queue's
// event stream (blocking reads of up to a thousand events), which keeps only the completions
// and failures of the jobs this coordinator waits for: no listener, no promise and no event
// object per job, only one pending entry. A sweep now and then looks up the jobs not heard of
// for a while, so an event lost (a stream trimmed past a reader that fell behind) costs a
// delay, never a hang; a watchdog ends every wait when Redis is lost or no worker answers.
import { systemClock } from '../../domain/ports/clock.ts';
import { JobGaveUp, NoWorkerAnswered, QueueUnreachable } from './errors.ts';
import { isTagged, jobTag, resultTagHolds, versionTag, type Tagged } from './queue-key.ts';

export interface CoordinatorSettings {
  /** How long Redis may be unreachable mid-run before the command gives up (exit 3). */
  readonly lostAfterMs: number;
  /** How long pending jobs may see no worker activity at all before the command gives up. */
  readonly idleLimitMs: number;
  /** After this long without worker activity, the command says so once if no worker is connected (it keeps waiting until idleLimitMs). */
  readonly noWorkerHintMs: number;
  /** Attempts of a job that fails for infrastructure reasons (a worker's fetch, a crash) before it is given up. */
  readonly attempts: number;
  /** How long finished jobs stay in Redis, so a restarted coordinator collects them instead of running them again. */
  readonly keepResultsSeconds: number;
}

/** The coordinator's side of the queue: enqueue case-trials, publish bundles, collect results. */
export interface CaseTrialQueue {
  /**
   * Enqueues a job whose body is the JSON text `body` (or finds the one of the same id) and
   * resolves with its result, and whether that result was finished by an earlier submission (a
   * run before a crash). With `afresh`, a finished job of that id is removed first, so the
   * case-trial runs again.
   */
  submit(jobId: string, body: string, options?: { readonly afresh?: boolean }): Promise<Collected>;
  hasBundle(key: string): Promise<boolean>;
  putBundle(key: string, bytes: Buffer, ttlSeconds: number): Promise<void>;
  /** Publishes `body` (a JobVersion as JSON) as the version workers prepare when they start, tagged with the key. */
  putVersion(body: string, ttlSeconds: number): Promise<void>;
  workerCount(): Promise<number>;
  /** Sends nothing more, and takes the jobs waiting for it out of the queue (CaseTrialExecutor.withdraw). */
  withdraw(): Promise<number>;
  close(): Promise<void>;
}

export interface Collected {
  readonly value: unknown;
  /** True when the job was created before this submission: its result (and its cost) came from an earlier run. */
  readonly earlier: boolean;
}

/** A job as Redis holds it. */
export interface JobState {
  readonly finished: boolean;
  /** The worker's answer as stored (JSON text), once completed; null otherwise. */
  readonly returnvalue: string | null;
  readonly failedReason: string | null;
  /** When the job was created, ms since the epoch. */
  readonly createdAt: number;
}

/** The events of the queue's stream the coordinator acts on; every other one only shows activity. */
export type QueueEvent =
  | { readonly kind: 'completed'; readonly jobId: string; readonly returnvalue: string }
  | { readonly kind: 'failed'; readonly jobId: string; readonly failedReason: string }
  /** Removed before it was done with: by another command's withdrawal, say (a job is shared by its content). */
  | { readonly kind: 'removed'; readonly jobId: string }
  | { readonly kind: 'other' };

/** What the coordinator needs of BullMQ and Redis (bullmq.ts). */
export interface CoordinatorLink {
  /** The states of these jobs (null: no such job), in one round trip. */
  states(ids: readonly string[]): Promise<Array<JobState | null>>;
  /** Adds these jobs in one round trip; a job whose id exists is left as it is. */
  addAll(jobs: ReadonlyArray<{ readonly id: string; readonly entry: Tagged }>): Promise<void>;
  /** Removes a finished job, result and all, so its id can run again. */
  remove(id: string): Promise<void>;
  /** Removes those of these jobs that are waiting for a worker (a retry waiting out its backoff included; a running or finished one stays); resolves with how many. */
  removeWaiting(ids: readonly string[]): Promise<number>;
  /** The position of the end of the event stream: the events after it are new. */
  eventsEnd(): Promise<string>;
  /** The events after `after` (waiting up to `blockMs` for one), and the position after them. */
  eventsAfter(after: string, blockMs: number): Promise<{ readonly position: string; readonly events: readonly QueueEvent[] }>;
  /** Whether every connection is up. */
  reachable(): Promise<boolean>;
  readonly shown: string;
  hasBundle(key: string): Promise<boolean>;
  putBundle(key: string, bytes: Buffer, ttlSeconds: number): Promise<void>;
  putVersion(tagged: string, ttlSeconds: number): Promise<void>;
  workerCount(): Promise<number>;
  close(): Promise<void>;
}

/** Times a case-trial whose result was refused (not tagged with the key for this job) is run again before it is given up. */
const RERUNS_OF_REFUSED = 2;
/** Most jobs looked up and added in one round trip. */
const BATCH_MAX = 500;
/**
 * Most jobs in the first batch after a pause (a run's start): enough to fill the slots of
 * several workers, and looked up and added in a few milliseconds where a full batch takes tens,
 * so the workers start sooner; the rest follow GATHER_MS later, while these run.
 */
const FIRST_BATCH_MAX = 64;
const READ_BLOCK_MS = 1000;
/**
 * After a read that brought events, the reader waits this long before the next one, and a
 * batch is sent this long after the one before (the first at once): results and submissions
 * that come one at a time then share a round trip (a case-trial takes far longer than this; the workers
 * meanwhile run the jobs queued ahead, up to QUEUE_IN_FLIGHT).
 */
const GATHER_MS = 20;
/** A batch that could not be sent (Redis reconnecting) is sent again after this long, until the watchdog gives up. */
const RESEND_MS = 500;
const WATCHDOG_MS = 500;
/** Jobs not heard of for this long are looked up, every SWEEP_EVERY_MS. */
const SWEEP_AFTER_MS = 30_000;
const SWEEP_EVERY_MS = 15_000;

/** What a job returns: the handler's result and when the job was created (by a coordinator). */
interface Answer {
  readonly value: unknown;
  readonly createdAt: number;
}

/** A result, once its tag proves a holder of the key wrote it for this job; else why it is refused. */
export function unwrap(key: Buffer, jobId: string, returned: unknown, submittedAt: number): Collected | string {
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

interface Waiter {
  readonly resolve: (collected: Collected) => void;
  readonly reject: (error: Error) => void;
}

interface Pending {
  readonly id: string;
  readonly entry: Tagged;
  readonly submittedAt: number;
  readonly waiters: Waiter[];
  refusals: number;
  /** The job was found in Redis, created by an earlier submission: if it failed, it is tried afresh once. */
  earlierRun: boolean;
  retriedAfresh: boolean;
  /** Remove the job of this id before adding it (a refused result, a rerun asked for). */
  removeFirst: boolean;
  /** Waiting to be sent in the next batch: events of its earlier run are not its own. */
  queued: boolean;
  /** When it was last sent or looked up. */
  sentAt: number;
}

/** `note` says what a waiting command should know (no worker connected), once. */
export async function startCollector(link: CoordinatorLink, settings: CoordinatorSettings, key: Buffer, note: (message: string) => void = () => undefined): Promise<CaseTrialQueue> {
  const now = () => systemClock.now().getTime();
  const pending = new Map<string, Pending>();
  let outgoing: Pending[] = [];
  let flushScheduled = false;
  let closing = false;
  /** Set once the command is interrupted: no batch goes out any more. */
  let withdrawn = false;
  /** The batches being sent (they may overlap): a withdrawal waits for them, so that nothing they add stays behind. */
  const sending = new Set<Promise<void>>();
  let failure: Error | null = null;
  let lastActivity = now();
  let lastReachable = now();
  let lastSweep = now();
  // Read from here: every event of a job submitted from now on comes after it.
  let position = await link.eventsEnd();

  const settleWith = (job: Pending, outcome: { readonly collected: Collected } | { readonly error: Error }) => {
    if (pending.get(job.id) !== job) return;
    pending.delete(job.id);
    for (const waiter of job.waiters) {
      if ('collected' in outcome) waiter.resolve(outcome.collected);
      else waiter.reject(outcome.error);
    }
  };

  // The first batch of a run (or after a pause) goes at once, and small (FIRST_BATCH_MAX); the
  // next ones go at most once every GATHER_MS.
  let lastFlush = Number.NEGATIVE_INFINITY;
  let flushAfterPause = false;
  const scheduleFlush = () => {
    if (flushScheduled || withdrawn) return;
    flushScheduled = true;
    const delay = lastFlush + GATHER_MS - now();
    flushAfterPause = delay < 0;
    setTimeout(() => {
      const sent = flush();
      sending.add(sent);
      void sent.finally(() => sending.delete(sent));
    }, Math.max(0, delay));
  };

  const enqueue = (job: Pending) => {
    job.queued = true;
    outgoing.push(job);
    scheduleFlush();
  };

  /** Every wait ends with this error: the queue cannot go on. */
  const giveUp = (error: Error) => {
    failure ??= error;
    for (const job of [...pending.values()]) settleWith(job, { error: failure });
  };

  const refuse = (job: Pending, reason: string) => {
    if (job.refusals >= RERUNS_OF_REFUSED) return settleWith(job, { error: new JobGaveUp(`${reason}; refused ${job.refusals + 1} times`) });
    // The refused result is dropped, and the case-trial runs again.
    job.refusals += 1;
    job.removeFirst = true;
    enqueue(job);
  };

  const completed = (job: Pending, returnvalue: string) => {
    let returned: unknown = null;
    try {
      returned = JSON.parse(returnvalue);
    } catch {
      // Not JSON: refused below as not a tagged entry.
    }
    const collected = unwrap(key, job.id, returned, job.submittedAt);
    if (typeof collected === 'string') refuse(job, `refused ${collected}`);
    else settleWith(job, { collected });
  };

  const failed = (job: Pending, reason: string, createdEarlier: boolean) => {
    // A job given up by an earlier run (say, one that lost its workers) is tried afresh, once.
    if ((createdEarlier || job.earlierRun) && !job.retriedAfresh) {
      job.retriedAfresh = true;
      job.earlierRun = false;
      job.removeFirst = true;
      enqueue(job);
      return;
    }
    settleWith(job, { error: new JobGaveUp(reason) });
  };

  const settleFinished = (job: Pending, state: JobState) => {
    if (state.returnvalue !== null) completed(job, state.returnvalue);
    else failed(job, state.failedReason ?? 'failed', state.createdAt < job.submittedAt);
  };

  /** Sends the jobs queued so far: removals asked for, one lookup, one addBulk. */
  async function flush(): Promise<void> {
    flushScheduled = false;
    if (withdrawn) return;
    lastFlush = now();
    const batch = outgoing.splice(0, flushAfterPause ? FIRST_BATCH_MAX : BATCH_MAX);
    if (outgoing.length > 0) scheduleFlush();
    const live = () => batch.filter((job) => pending.get(job.id) === job);
    try {
      // At once, on one connection (a fresh run removes a whole batch of finished jobs).
      await Promise.all(
        live()
          .filter((j) => j.removeFirst)
          .map(async (job) => {
            await link.remove(job.id);
            job.removeFirst = false;
          }),
      );
      const current = live();
      const states = await link.states(current.map((job) => job.id));
      const toAdd: Pending[] = [];
      current.forEach((job, i) => {
        job.queued = false;
        job.sentAt = now();
        const state = states[i] ?? null;
        if (pending.get(job.id) !== job) return;
        if (state === null) toAdd.push(job);
        // A job of an earlier run that finished: its result is collected, not run again.
        else if (state.finished) settleFinished(job, state);
        // Still waiting or running, for an earlier submission: its events come to the reader.
        else job.earlierRun ||= state.createdAt < job.submittedAt;
      });
      if (toAdd.length > 0 && !withdrawn) await link.addAll(toAdd.map((job) => ({ id: job.id, entry: job.entry })));
    } catch (error) {
      if (failure) return giveUp(failure);
      // Redis answered, with an error: nothing to wait out (a bug, a Redis that refuses the commands).
      if (await link.reachable().catch(() => false)) {
        for (const job of live()) settleWith(job, { error: error instanceof Error ? error : new Error(String(error), { cause: error }) });
        return;
      }
      // Redis is reconnecting: the batch goes again, until the watchdog says it was lost too long.
      setTimeout(() => {
        for (const job of live()) if (!job.queued) enqueue(job);
      }, RESEND_MS).unref();
    }
  }

  const onEvents = (events: readonly QueueEvent[]) => {
    if (events.length > 0) lastActivity = now();
    for (const event of events) {
      if (event.kind === 'other') continue;
      const job = pending.get(event.jobId);
      // Not ours, or ours but about to run again (the event is of its run before).
      if (!job || job.queued) continue;
      if (event.kind === 'completed') completed(job, event.returnvalue);
      else if (event.kind === 'failed') failed(job, event.failedReason, false);
      // Taken out of the queue while this command waits for it: added again (or, if this
      // command removed it to run it again, looked up once more, which finds it added).
      else enqueue(job);
    }
  };

  const reading = (async () => {
    let failedReads = 0;
    while (!closing) {
      try {
        const read = await link.eventsAfter(position, READ_BLOCK_MS);
        position = read.position;
        failedReads = 0;
        onEvents(read.events);
        if (read.events.length > 0 && !closing) await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
      } catch (error) {
        if (closing) return;
        // Lost or reconnecting: the watchdog decides when that has lasted too long. Failing
        // while Redis answers is no outage: after a few tries, every wait ends with the error.
        failedReads = (await link.reachable().catch(() => false)) ? failedReads + 1 : 0;
        if (failedReads >= 3) return giveUp(error instanceof Error ? error : new Error(String(error), { cause: error }));
        await new Promise((resolve) => setTimeout(resolve, RESEND_MS));
      }
    }
  })();

  /** Looks up the jobs not heard of for a while: an event the reader missed costs a delay, never a hang. */
  async function sweep(): Promise<void> {
    const stale = [...pending.values()].filter((job) => !job.queued && now() - job.sentAt > SWEEP_AFTER_MS);
    if (stale.length === 0) return;
    const states = await link.states(stale.map((job) => job.id));
    stale.forEach((job, i) => {
      job.sentAt = now();
      const state = states[i] ?? null;
      if (pending.get(job.id) !== job || job.queued) return;
      if (state === null) enqueue(job);
      else if (state.finished) settleFinished(job, state);
    });
  }

  /** Whether the command was told that no worker is connected (once per stretch without activity), and when it last looked. */
  let hinted = false;
  let lastHintCheck = 0;
  // One watchdog for every pending job: Redis lost too long, or no worker activity too long.
  const watchdog = setInterval(() => {
    void (async () => {
      const up = await link.reachable().catch(() => false);
      const at = now();
      if (up) lastReachable = at;
      if (pending.size === 0) lastActivity = at;
      failure ??=
        at - lastReachable > settings.lostAfterMs
          ? new QueueUnreachable(link.shown, `was lost for more than ${Math.round(settings.lostAfterMs / 1000)} s`)
          : at - lastActivity > settings.idleLimitMs
            ? new NoWorkerAnswered(at - lastActivity)
            : null;
      if (failure) return giveUp(failure);
      // Once per stretch without activity, and looked at once per noWorkerHintMs: workers that
      // are connected but quiet (long case-trials) use up nothing, and workers that leave later are said.
      if (at - lastActivity < settings.noWorkerHintMs) hinted = false;
      else if (up && !hinted && at - lastHintCheck > settings.noWorkerHintMs) {
        lastHintCheck = at;
        const workers = await link.workerCount().catch(() => null);
        if (workers === 0 && !hinted) {
          hinted = true;
          const minutes = Math.round(settings.idleLimitMs / 60_000);
          note(`no worker is connected to the queue at ${link.shown}: the case-trials wait for one (agentdevel worker --queue URL, with the same URL and AGENTDEVEL_QUEUE_KEY); the command gives up after ${minutes > 0 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(settings.idleLimitMs / 1000)} s`} without one`);
        }
      }
      if (up && at - lastSweep > SWEEP_EVERY_MS) {
        lastSweep = at;
        await sweep().catch(() => undefined);
      }
    })();
  }, WATCHDOG_MS);

  return {
    submit: (jobId, body, options = {}) => {
      if (failure) return Promise.reject(failure);
      return new Promise<Collected>((resolve, reject) => {
        const known = pending.get(jobId);
        if (known) {
          known.waiters.push({ resolve, reject });
          return;
        }
        const job: Pending = {
          id: jobId,
          entry: { body, tag: jobTag(key, jobId, body) },
          submittedAt: now(),
          waiters: [{ resolve, reject }],
          refusals: 0,
          earlierRun: false,
          retriedAfresh: false,
          removeFirst: options.afresh === true,
          queued: false,
          sentAt: now(),
        };
        pending.set(jobId, job);
        enqueue(job);
      });
    },
    hasBundle: (bundleKey) => link.hasBundle(bundleKey),
    putBundle: (bundleKey, bytes, ttlSeconds) => link.putBundle(bundleKey, bytes, ttlSeconds),
    putVersion: (body, ttlSeconds) => link.putVersion(JSON.stringify({ body, tag: versionTag(key, body) } satisfies Tagged), ttlSeconds),
    workerCount: () => link.workerCount(),
    withdraw: async () => {
      withdrawn = true;
      // Redis lost: nothing can be taken back (the interrupt's bound would only be waited out).
      if (!(await link.reachable().catch(() => false))) return 0;
      await Promise.allSettled([...sending]);
      // Every job this command waits for: one queued again may be in Redis from an earlier send.
      // Another command waiting on the same job (the same case-trial of the same version) sees
      // it removed, and adds it again.
      const ids = [...pending.keys()];
      return ids.length === 0 ? 0 : link.removeWaiting(ids);
    },
    close: async () => {
      closing = true;
      clearInterval(watchdog);
      await link.close();
      // A read sent before Redis was lost may never be answered, even once its connection is
      // dropped: the reader is waited for within a bound, never for ever.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([reading, new Promise((resolve) => (timer = setTimeout(resolve, READ_BLOCK_MS)))]);
      clearTimeout(timer);
    },
  };
}
