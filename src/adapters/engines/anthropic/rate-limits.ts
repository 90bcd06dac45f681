// Model calls share the API's rate limits, so they share one pace: every call of a process to
// one API with one key waits here for its turn. Three things set the pace:
//   - the rate-limit headers of every answer (`anthropic-ratelimit-requests-*` and the token
//     ones): each is a bucket, refilled at the rate its reset time implies, and a call starts
//     only when the buckets hold what it needs, counting the calls started since the answer;
//   - calls in flight are a window, as in TCP: it starts small and grows by one per success
//     (doubling while nothing was refused), a 429 halves it, and after that it grows by one per
//     window of successful calls (AIMD); a 429 also closes the door to everyone for its
//     retry-after. So a burst of calls before any header was read cannot all be refused;
//   - the retry of a failed call waits a jittered delay (backoffMs), so calls refused together
//     do not come back together.
// The pace is computed here from the clock it is given; waiting is the only effect, and every
// wait is bounded by the caller's deadline.
import { systemClock } from '../../../domain/ports/clock.ts';

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

/** One bucket the API reports: its per-minute limit and what remained when a call was counted. */
interface Bucket {
  readonly limit: number;
  readonly remaining: number;
  /** Refill per millisecond: what is missing over the time until the reset (full again). */
  readonly perMs: number;
  /** When the call that reported it started (the server counted it then). */
  readonly at: number;
  /** The sequence number of that call: calls started after it are not in `remaining`. */
  readonly seq: number;
}

type BucketName = 'requests' | 'tokens' | 'input-tokens' | 'output-tokens';
const BUCKETS: readonly BucketName[] = ['requests', 'tokens', 'input-tokens', 'output-tokens'];

/** A call in flight: it says how it ended, once. */
export interface Permit {
  readonly seq: number;
  /** Headers of an answer (success or error): the buckets as the API counted this call. */
  observe(headers: Headers): void;
  /** The call succeeded; `tokens` it used, for the token buckets' estimate of the next call. */
  succeeded(tokens: { input: number; output: number }): void;
  /** The API refused the call with 429: slow down. */
  rateLimited(retryAfterMs: number | null): void;
  /** Any other end (error, outage): frees the slot. */
  failed(): void;
}

export interface RateLimiter {
  /** Waits until a call may start (never past `deadline`, else RateLimitWaitExceeded). */
  acquire(deadline: number): Promise<Permit>;
}

const MAX_WINDOW = 256;
const FIRST_WINDOW = 4;
/** Smoothing of the tokens a call uses (exponential moving average). */
const TOKEN_SMOOTHING = 0.2;
/** The API's limits are per minute: a bucket's refill rate until a reset time tells better. */
const MINUTE_MS = 60_000;

export function createRateLimiter(clock: RateLimitClock = systemRateLimitClock): RateLimiter {
  let window = FIRST_WINDOW;
  let slowStart = true;
  let inFlight = 0;
  let seq = 0;
  let pausedUntil = 0;
  let lastDecreaseSeq = -1;
  const buckets = new Map<BucketName, Bucket>();
  const tokens = { input: 0, output: 0, seen: false };
  /** When each call still in flight or recently started began, by sequence number. */
  const startedAt = new Map<number, number>();
  const queue: Array<() => void> = [];
  let pumping = false;

  /** What one call is expected to take from each bucket. */
  const need = (name: BucketName): number => {
    if (name === 'requests') return 1;
    if (!tokens.seen) return 0;
    if (name === 'input-tokens') return tokens.input;
    if (name === 'output-tokens') return tokens.output;
    return tokens.input + tokens.output;
  };

  /** Milliseconds until every bucket holds what one more call needs (0: now). */
  const bucketWait = (now: number): number => {
    let wait = 0;
    for (const [name, bucket] of buckets) {
      const perMs = bucket.perMs;
      const startedSince = seq - 1 - bucket.seq;
      const available = Math.min(bucket.limit, bucket.remaining + perMs * (now - bucket.at)) - startedSince * need(name);
      // A call that needs more than the whole bucket waits for a full one, not forever.
      const wanted = Math.min(need(name), bucket.limit);
      if (available < wanted) wait = Math.max(wait, (wanted - available) / perMs);
    }
    return Math.ceil(wait);
  };

  /** Admits the calls at the head of the queue, in order, as the pace allows. */
  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0) {
        if (inFlight >= Math.floor(window)) return; // a finishing call pumps again
        const now = clock.now();
        const wait = Math.max(pausedUntil - now, bucketWait(now));
        if (wait > 0) {
          await clock.sleep(wait);
          continue;
        }
        queue.shift()?.();
      }
    } finally {
      pumping = false;
    }
  };

  const release = (permitSeq: number) => {
    inFlight -= 1;
    startedAt.delete(permitSeq);
    void pump();
  };

  const permitFor = (permitSeq: number): Permit => {
    let ended = false;
    const end = () => {
      if (ended) return false;
      ended = true;
      return true;
    };
    return {
      seq: permitSeq,
      observe(headers) {
        const at = startedAt.get(permitSeq);
        if (at === undefined) return;
        for (const name of BUCKETS) {
          const limit = Number(headers.get(`anthropic-ratelimit-${name}-limit`));
          const remaining = Number(headers.get(`anthropic-ratelimit-${name}-remaining`));
          if (!headers.has(`anthropic-ratelimit-${name}-remaining`) || !Number.isFinite(limit) || !Number.isFinite(remaining) || limit <= 0) continue;
          const known = buckets.get(name);
          // An answer to an older call says less than the one already read.
          if (known && known.seq > permitSeq) continue;
          // The reset is when the bucket is full again: the refill rate is what is missing over
          // the time left (exact whatever the API's period); a full bucket keeps the last rate.
          const untilFull = Date.parse(headers.get(`anthropic-ratelimit-${name}-reset`) ?? '') - at;
          const perMs = remaining < limit && untilFull > 0 ? (limit - remaining) / untilFull : (known?.perMs ?? limit / MINUTE_MS);
          buckets.set(name, { limit, remaining, perMs, at, seq: permitSeq });
        }
      },
      succeeded(used) {
        if (!end()) return;
        tokens.input = tokens.seen ? tokens.input + TOKEN_SMOOTHING * (used.input - tokens.input) : used.input;
        tokens.output = tokens.seen ? tokens.output + TOKEN_SMOOTHING * (used.output - tokens.output) : used.output;
        tokens.seen = true;
        window = Math.min(MAX_WINDOW, window + (slowStart ? 1 : 1 / Math.max(1, window)));
        release(permitSeq);
      },
      rateLimited(retryAfterMs) {
        if (!end()) return;
        const now = clock.now();
        if (retryAfterMs !== null) pausedUntil = Math.max(pausedUntil, now + retryAfterMs);
        // One decrease per congestion: calls started before the last decrease saw the old pace.
        slowStart = false;
        if (permitSeq > lastDecreaseSeq) {
          window = Math.max(1, Math.floor(Math.min(window, inFlight) / 2));
          lastDecreaseSeq = seq - 1;
        }
        release(permitSeq);
      },
      failed() {
        if (end()) release(permitSeq);
      },
    };
  };

  return {
    acquire(deadline) {
      const asked = clock.now();
      return new Promise<Permit>((resolve, reject) => {
        const timer = setTimeout(() => {
          const index = queue.indexOf(admit);
          if (index < 0) return;
          queue.splice(index, 1);
          reject(new RateLimitWaitExceeded(clock.now() - asked));
        }, Math.max(0, deadline - asked));
        const admit = () => {
          clearTimeout(timer);
          const permitSeq = seq;
          seq += 1;
          inFlight += 1;
          startedAt.set(permitSeq, clock.now());
          resolve(permitFor(permitSeq));
        };
        queue.push(admit);
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

/**
 * One limiter per API and key in the process: every command, role and run of this process that
 * calls the same API with the same key shares its limits (they are the key's, not the caller's).
 */
const shared = new Map<string, RateLimiter>();
export function sharedRateLimiter(apiKey: string, baseURL: string | null): RateLimiter {
  const key = `${baseURL ?? 'default'}\0${apiKey}`;
  let limiter = shared.get(key);
  if (!limiter) {
    limiter = createRateLimiter();
    shared.set(key, limiter);
  }
  return limiter;
}
