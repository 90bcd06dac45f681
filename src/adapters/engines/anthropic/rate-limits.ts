// Model calls share the API's rate limits, so they share one pace: every call to one API with
// one key waits here for its turn. What sets the pace is pace.ts (the rate-limit headers as
// buckets, a window of calls in flight, the retry-after pause, and a bucket learned from 429s
// when the API sends no headers); this module makes calls wait for it. The pace's state lives
// in a store: in this process by default, or in Redis (adapters/queue/redis-pace.ts) when a
// queue is used, so that the coordinator and every worker keep one pace between them. The
// retry of a failed call waits a jittered delay (backoffMs), so calls refused together do not
// come back together. Waiting is the only effect, and every wait is bounded by the caller's
// deadline.
import { systemClock } from '../../../domain/ports/clock.ts';
import { admit, BUCKETS, end, heartbeat, initialPace, observe, type BucketReading, type CallEnd, type PaceState } from './pace.ts';

/** A call could not start before its deadline: the limits left no room for it. */
export class RateLimitWaitExceeded extends Error {
  constructor(readonly waitedMs: number) {
    super(`waited ${Math.round(waitedMs / 1000)} s for the API's rate limits`);
    this.name = 'RateLimitWaitExceeded';
  }
}

export interface RateLimitClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemRateLimitClock: RateLimitClock = {
  now: () => systemClock.now().getTime(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A call in flight: it says how it ended, once. */
export interface Permit {
  /** Headers of an answer (success or error): the buckets as the API counted this call. */
  observe(headers: Headers): void;
  /** The call succeeded; `tokens` it used, for the token buckets' estimate of the next call. */
  succeeded(tokens: { input: number; output: number }): void;
  /** The API refused the call with 429: slow down. */
  rateLimited(retryAfterMs: number | null): void;
  /** Any other end; `fault` when the API is failing (5xx, 529, no connection), not refusing this request. */
  failed(fault?: boolean): void;
}

export interface RateLimiter {
  /** Waits until a call may start (never past `deadline`, else RateLimitWaitExceeded). */
  acquire(deadline: number): Promise<Permit>;
}

/** Where the pace's state is kept, and whose time it is read at. */
export interface PaceStore {
  /** Other processes change the state too: a full window may be freed by them, so it is looked at again now and then. */
  readonly shared: boolean;
  /** Applies `change` to the state at the store's time, as one step; resolves with what it returned. */
  update<T>(change: (state: PaceState, now: number) => readonly [PaceState, T]): Promise<T>;
}

/** The pace kept in this process. Changes apply in the order they are asked for. */
export function localPaceStore(clock: RateLimitClock = systemRateLimitClock): PaceStore {
  let state = initialPace;
  return {
    shared: false,
    update: (change) => {
      const [next, result] = change(state, clock.now());
      state = next;
      return Promise.resolve(result);
    },
  };
}

/** How often a full window shared with other processes is looked at again. */
const SHARED_POLL_MS = 50;
/** How often a process with calls in flight says it is alive, in a shared pace (pace.ts drops a silent one's calls). */
const HEARTBEAT_MS = 15_000;

/** The buckets an answer's headers report. */
export function readingsOf(headers: Headers): BucketReading[] {
  const readings: BucketReading[] = [];
  for (const name of BUCKETS) {
    const limit = Number(headers.get(`anthropic-ratelimit-${name}-limit`));
    const remaining = Number(headers.get(`anthropic-ratelimit-${name}-remaining`));
    if (!headers.has(`anthropic-ratelimit-${name}-remaining`) || !Number.isFinite(limit) || !Number.isFinite(remaining) || limit <= 0) continue;
    const reset = Date.parse(headers.get(`anthropic-ratelimit-${name}-reset`) ?? '');
    readings.push({ name, limit, remaining, resetAt: Number.isNaN(reset) ? null : reset });
  }
  return readings;
}

/**
 * Calls wait their turn in this process in order; the pace they wait for is the store's.
 * `owner` names this process in a shared store.
 */
export function createRateLimiter(clock: RateLimitClock = systemRateLimitClock, store: PaceStore = localPaceStore(clock), owner = 'local'): RateLimiter {
  const queue: Array<(id: string) => void> = [];
  let pumping = false;
  let inFlightHere = 0;
  let heartbeatTimer: NodeJS.Timeout | null = null;

  /** Admits the calls at the head of the queue, in order, as the pace allows. */
  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0) {
        const admission = await store.update((state, now) => admit(state, owner, now));
        if ('granted' in admission) {
          const next = queue.shift();
          // The call stopped waiting meanwhile (its deadline): the permit goes back.
          if (next) next(admission.granted);
          else void store.update((state, now) => [end(state, admission.granted, { kind: 'failed', fault: false }, now), undefined] as const);
          continue;
        }
        if ('windowFull' in admission) {
          // A call ending here pumps again; one ending in another process is seen at the next look.
          if (!store.shared) return;
          await clock.sleep(SHARED_POLL_MS);
          continue;
        }
        await clock.sleep(admission.waitMs);
      }
    } finally {
      pumping = false;
    }
  };

  const keepAlive = () => {
    if (!store.shared) return;
    if (inFlightHere > 0 && heartbeatTimer === null) {
      heartbeatTimer = setInterval(() => void store.update((state, now) => [heartbeat(state, owner, now), undefined] as const), HEARTBEAT_MS);
      heartbeatTimer.unref();
    }
    if (inFlightHere === 0 && heartbeatTimer !== null) {
      clearInterval(heartbeatTimer);
      heartbeatTimer = null;
    }
  };

  const permitFor = (id: string): Permit => {
    inFlightHere += 1;
    keepAlive();
    let ended = false;
    // This call's changes apply in the order it makes them (a shared store answers asynchronously).
    let last: Promise<unknown> = Promise.resolve();
    const apply = (change: (state: PaceState, now: number) => PaceState) => {
      last = last.then(() => store.update((state, now) => [change(state, now), undefined] as const));
      return last;
    };
    const finish = (how: CallEnd) => {
      if (ended) return;
      ended = true;
      inFlightHere -= 1;
      keepAlive();
      void apply((state, now) => end(state, id, how, now)).then(() => pump());
    };
    return {
      observe(headers) {
        if (ended) return;
        const readings = readingsOf(headers);
        if (readings.length > 0) void apply((state, now) => observe(state, id, readings, now));
      },
      succeeded: (tokens) => finish({ kind: 'succeeded', tokens }),
      rateLimited: (retryAfterMs) => finish({ kind: 'rate-limited', retryAfterMs }),
      failed: (fault = false) => finish({ kind: 'failed', fault }),
    };
  };

  return {
    acquire(deadline) {
      const asked = clock.now();
      return new Promise<Permit>((resolve, reject) => {
        const timer = setTimeout(() => {
          const index = queue.indexOf(admitted);
          if (index < 0) return;
          queue.splice(index, 1);
          reject(new RateLimitWaitExceeded(clock.now() - asked));
        }, Math.max(0, deadline - asked));
        const admitted = (id: string) => {
          clearTimeout(timer);
          resolve(permitFor(id));
        };
        queue.push(admitted);
        void pump();
      });
    },
  };
}

const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/**
 * How long the retry of a failed call waits: the server's retry-after when it gave one, else an
 * exponential delay from 0.5 s (capped at 8 s); plus a random share of as much again, so calls
 * that failed together spread out instead of returning together. `random` is in [0, 1).
 */
export function backoffMs(attempt: number, retryAfterMs: number | null, random: number): number {
  const base = retryAfterMs ?? Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** attempt);
  return Math.round(base * (1 + random));
}

/** retry-after-ms, else retry-after (seconds or an HTTP date), in milliseconds; null when absent. */
export function retryAfterMs(headers: Headers | undefined, now: number): number | null {
  if (!headers) return null;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The pace for calls to one API with one key: the process's own, or one shared with other processes. */
export type PaceFor = (apiKey: string, baseURL: string | null) => RateLimiter;

/**
 * One limiter per API and key in the process: every command, role and run of this process that
 * calls the same API with the same key shares its limits (they are the key's, not the caller's).
 */
const shared = new Map<string, RateLimiter>();
export const sharedRateLimiter: PaceFor = (apiKey, baseURL) => {
  const key = `${baseURL ?? 'default'}\0${apiKey}`;
  let limiter = shared.get(key);
  if (!limiter) {
    limiter = createRateLimiter();
    shared.set(key, limiter);
  }
  return limiter;
};
