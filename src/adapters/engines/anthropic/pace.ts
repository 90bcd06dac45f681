// The pace of the calls to one API with one key, as data: a state and the pure changes the
// calls make to it, at a time they are given (no clock is read here). rate-limits.ts keeps the
// state in this process, or in Redis for every process on a queue (adapters/queue/redis-pace.ts):
// either way the same changes apply, so the coordinator and every worker keep one pace.
//
// Three things set the pace:
//   - the rate-limit headers of every answer (`anthropic-ratelimit-requests-*` and the token
//     ones): each is a bucket, refilled at the rate its reset time implies, and a call starts
//     only when the buckets hold what it needs, counting the calls started since the answer;
//   - calls in flight are a window, as in TCP: it starts small and grows by one per success
//     (doubling while nothing was refused), a 429 halves it, and after that it grows by one per
//     window of successful calls (AIMD); a 429 also closes the door to everyone for its
//     retry-after;
//   - an API that sends no rate-limit headers, only 429 with retry-after, gets a learned bucket
//     (learner.ts): the rate the API accepted while it was kept busy, never below a floor.
import { awake, idleLearner, learnedRate, learnedWait, learnerAccepted, learnerAdmitted, learnerFailed, learnerRefused, type LearnerState } from './learner.ts';

export type BucketName = 'requests' | 'tokens' | 'input-tokens' | 'output-tokens';
export const BUCKETS: readonly BucketName[] = ['requests', 'tokens', 'input-tokens', 'output-tokens'];

/** One bucket the API reports: its per-minute limit and what remained when a call was counted. */
export interface Bucket {
  readonly limit: number;
  readonly remaining: number;
  /** Refill per millisecond. */
  readonly perMs: number;
  /** When the call that reported it started (the server counted it then). */
  readonly at: number;
  /** The sequence number of that call: calls started after it are not in `remaining`. */
  readonly seq: number;
}

/** One bucket as an answer's headers read: limit, remaining, and when it is full again (ms, or null). */
export interface BucketReading {
  readonly name: BucketName;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAt: number | null;
}

/** A call in flight: when it started, its sequence number, and the process that made it. */
export interface Call {
  readonly at: number;
  readonly seq: number;
  readonly owner: string;
}

export interface PaceState {
  readonly window: number;
  readonly slowStart: boolean;
  /** The sequence number the next call gets. */
  readonly seq: number;
  readonly pausedUntil: number;
  readonly lastDecreaseSeq: number;
  readonly buckets: Readonly<Partial<Record<BucketName, Bucket>>>;
  /** Tokens a call uses (moving averages), for the token buckets. */
  readonly tokens: { readonly input: number; readonly output: number; readonly seen: boolean };
  /** How long a successful call takes (moving average), ms; null before the first. */
  readonly latencyMs: number | null;
  /** Calls in flight, by permit id. */
  readonly calls: Readonly<Record<string, Call>>;
  /** The processes that make calls, and when each was last heard of: a dead one's calls are dropped. */
  readonly owners: Readonly<Record<string, number>>;
  readonly learner: LearnerState;
}

export const MAX_WINDOW = 256;
const FIRST_WINDOW = 4;
/** Smoothing of moving averages. */
const SMOOTHING = 0.2;
/** The API's limits are per minute: a bucket's refill rate until a reset time tells better. */
const MINUTE_MS = 60_000;
/** A process not heard of for this long is gone: its calls no longer count as in flight. */
export const OWNER_TTL_MS = 60_000;

export const initialPace: PaceState = {
  window: FIRST_WINDOW,
  slowStart: true,
  seq: 0,
  pausedUntil: 0,
  lastDecreaseSeq: -1,
  buckets: {},
  tokens: { input: 0, output: 0, seen: false },
  latencyMs: null,
  calls: {},
  owners: {},
  learner: idleLearner,
};

const headersKnown = (state: PaceState): boolean => Object.keys(state.buckets).length > 0;

/** What one call is expected to take from a bucket. */
function need(state: PaceState, name: BucketName): number {
  if (name === 'requests') return 1;
  if (!state.tokens.seen) return 0;
  if (name === 'input-tokens') return state.tokens.input;
  if (name === 'output-tokens') return state.tokens.output;
  return state.tokens.input + state.tokens.output;
}

/** Milliseconds until every bucket holds what one more call needs (0: now). */
function bucketWait(state: PaceState, now: number): number {
  let wait = 0;
  for (const name of BUCKETS) {
    const bucket = state.buckets[name];
    if (!bucket) continue;
    const startedSince = state.seq - 1 - bucket.seq;
    const available = Math.min(bucket.limit, bucket.remaining + bucket.perMs * (now - bucket.at)) - startedSince * need(state, name);
    // A call that needs more than the whole bucket waits for a full one, not forever.
    const wanted = Math.min(need(state, name), bucket.limit);
    if (available < wanted) wait = Math.max(wait, (wanted - available) / bucket.perMs);
  }
  return wait;
}

/** Drops the calls of processes not heard of for OWNER_TTL_MS (they died mid-call), and notes `owner` as heard of. */
function heard(state: PaceState, owner: string, now: number): PaceState {
  const owners: Record<string, number> = { [owner]: now };
  for (const [name, at] of Object.entries(state.owners)) if (name !== owner && now - at <= OWNER_TTL_MS) owners[name] = at;
  const calls: Record<string, Call> = {};
  let dropped = false;
  for (const [id, call] of Object.entries(state.calls)) {
    if (call.owner in owners) calls[id] = call;
    else dropped = true;
  }
  return { ...state, owners, calls: dropped ? calls : state.calls };
}

export type Admission = { readonly granted: string } | { readonly waitMs: number } | { readonly windowFull: true };

/** One call asks to start: it is granted a permit id, or told how long to wait (or to wait for a call to end). */
export function admit(state: PaceState, owner: string, now: number): readonly [PaceState, Admission] {
  const current = heard(state, owner, now);
  // Without headers, a learned rate paces the calls: the window holds at least what it keeps in flight.
  const window = headersKnown(current) ? current.window : Math.max(current.window, learnedWindow(current.learner, current.latencyMs));
  if (Object.keys(current.calls).length >= Math.floor(window)) return [current, { windowFull: true }];
  const learner = headersKnown(current) ? current.learner : awake(current.learner, now);
  const wait = Math.max(current.pausedUntil - now, bucketWait(current, now), headersKnown(current) ? 0 : learnedWait(learner, now));
  if (wait > 0) return [{ ...current, learner }, { waitMs: Math.ceil(wait) }];
  const id = `${owner}:${current.seq}`;
  return [
    {
      ...current,
      seq: current.seq + 1,
      calls: { ...current.calls, [id]: { at: now, seq: current.seq, owner } },
      learner: headersKnown(current) ? learner : learnerAdmitted(learner, now),
    },
    { granted: id },
  ];
}

/** An answer's rate-limit headers, for the call `id`. */
export function observe(state: PaceState, id: string, readings: readonly BucketReading[], now: number): PaceState {
  const call = state.calls[id];
  if (!call || readings.length === 0) return state;
  const buckets: Partial<Record<BucketName, Bucket>> = { ...state.buckets };
  for (const reading of readings) {
    const known = buckets[reading.name];
    // An answer to an older call says less than the one already read.
    if (known && known.seq > call.seq) continue;
    // The reset is when the bucket is full again: the refill rate is what is missing over the
    // time left (exact whatever the API's period); a full bucket keeps the last rate.
    const untilFull = reading.resetAt === null ? Number.NaN : reading.resetAt - call.at;
    const perMs = reading.remaining < reading.limit && untilFull > 0 ? (reading.limit - reading.remaining) / untilFull : (known?.perMs ?? reading.limit / MINUTE_MS);
    buckets[reading.name] = { limit: reading.limit, remaining: reading.remaining, perMs, at: call.at, seq: call.seq };
  }
  return { ...state, buckets, owners: { ...state.owners, [call.owner]: now } };
}

export type CallEnd =
  | { readonly kind: 'succeeded'; readonly tokens: { readonly input: number; readonly output: number } }
  | { readonly kind: 'rate-limited'; readonly retryAfterMs: number | null }
  /** `fault`: the API is failing (5xx, 529, no connection), not refusing a request. */
  | { readonly kind: 'failed'; readonly fault: boolean };

function withoutCall(state: PaceState, id: string): Record<string, Call> {
  const calls = { ...state.calls };
  delete calls[id];
  return calls;
}

/** The call `id` ended. */
export function end(state: PaceState, id: string, how: CallEnd, now: number): PaceState {
  const call = state.calls[id] ?? null;
  const calls = call ? withoutCall(state, id) : state.calls;
  const owners = call ? { ...state.owners, [call.owner]: now } : state.owners;
  switch (how.kind) {
    case 'succeeded': {
      const smooth = (was: number, value: number) => (state.tokens.seen ? was + SMOOTHING * (value - was) : value);
      const took = call ? now - call.at : null;
      return {
        ...state,
        calls,
        owners,
        tokens: { input: smooth(state.tokens.input, how.tokens.input), output: smooth(state.tokens.output, how.tokens.output), seen: true },
        latencyMs: took === null ? state.latencyMs : state.latencyMs === null ? took : state.latencyMs + SMOOTHING * (took - state.latencyMs),
        window: call ? Math.min(MAX_WINDOW, state.window + (state.slowStart ? 1 : 1 / Math.max(1, state.window))) : state.window,
        learner: call && !headersKnown(state) ? learnerAccepted(state.learner, now) : state.learner,
      };
    }
    case 'rate-limited': {
      const pausedUntil = how.retryAfterMs === null ? state.pausedUntil : Math.max(state.pausedUntil, now + how.retryAfterMs);
      const learner = headersKnown(state) ? state.learner : learnerRefused(state.learner, now, how.retryAfterMs, call?.at ?? null, state.pausedUntil);
      let { window, lastDecreaseSeq } = state;
      // One decrease per congestion: calls started before the last decrease saw the old pace.
      if (call && call.seq > state.lastDecreaseSeq) {
        const inFlight = Object.keys(state.calls).length;
        window = Math.max(1, Math.floor(Math.min(window, inFlight) / 2));
        // Without headers the 429s say a rate, which the learned bucket keeps: the window need
        // only hold what that rate keeps in flight (calls that take seconds would starve below).
        if (!headersKnown(state)) window = Math.max(window, Math.min(FIRST_WINDOW, state.window), learnedWindow(learner, state.latencyMs));
        lastDecreaseSeq = state.seq - 1;
      }
      return { ...state, calls, owners, pausedUntil, learner, window, lastDecreaseSeq, slowStart: false };
    }
    case 'failed':
      return { ...state, calls, owners, learner: headersKnown(state) ? state.learner : learnerFailed(state.learner, now, call?.at ?? null, how.fault) };
    default: {
      const exhaustive: never = how;
      return exhaustive;
    }
  }
}

/** Calls in flight that a learned rate keeps going at the calls' latency, with room to spare. */
function learnedWindow(learner: LearnerState, latencyMs: number | null): number {
  const rate = learnedRate(learner);
  if (rate === null || latencyMs === null) return 1;
  return Math.min(MAX_WINDOW, Math.ceil(rate * latencyMs * 1.5) + 1);
}

/** A process with calls in flight says it is alive, so its calls keep counting. */
export function heartbeat(state: PaceState, owner: string, now: number): PaceState {
  return heard(state, owner, now);
}
