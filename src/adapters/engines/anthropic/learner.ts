// The pace of an API that sends no rate-limit headers, only 429 with retry-after (as some
// gateways answer), learned from what it accepted. Pure: every function is given the time.
//
// The learned bucket has a rate and a burst (the calls it lets start at once after a pause).
//   - The first 429 that carries a retry-after, with enough evidence, sets the rate: the calls
//     the API accepted over the stretch that ended in the 429 (from the start of the current
//     busy phase, the first call after an idle gap; at most the last minute), per millisecond.
//     A token bucket that refused us after we kept it busy had accepted at least its rate over
//     that stretch, so the estimate is the limit or above it; a stretch not kept busy (calls
//     still ramping up) gives a lower one, which probing corrects.
//   - Probing: while the learned bucket holds calls back (it is nearly empty at each call), its
//     rate grows, by PROBE_FAST a second while below 90% of the rate that last drew a 429 (the
//     ceiling), by PROBE_NEAR a second above it: quickly back to the limit, slowly past it.
//   - A later 429 at the learned rate (the bucket was pacing the calls) moves the rate to the
//     evidence's estimate, kept between 85% and 100% of the rate refused at: the rate comes
//     down by at most 15% per 429 and never spirals down.
//   - A 429 while the burst that followed a pause was going out is the burst's fault, not the
//     rate's: the burst halves (the API's own bucket is smaller than a second's worth).
//
// What withdrew the first learned bucket (commit 5b932de) cannot happen here:
//   - a 429 after an idle phase came with a minute in which almost nothing was asked, and the
//     estimate was a crawl. Here the evidence starts at the busy phase, and a 429 with fewer
//     than MIN_EVIDENCE accepted calls, or over less than MIN_SPAN_MS, teaches nothing;
//   - the learned rate is never below FLOOR_PER_MINUTE, falls by at most 15% per 429, and
//     grows again while it holds calls back;
//   - a 429 without retry-after, or within FAULT_QUIET_MS of a fault (5xx, 529, no
//     connection), is an API in trouble, not a limit: it teaches nothing (it is still waited
//     out and retried by the client);
//   - IDLE_MS without a call and the learner starts over, as if it had never seen a 429.

/**
 * Calls the API accepted, by the second they started in: [second, count]. A call counts from
 * when it starts (so the calls still in flight at a 429 count, whatever the API's latency), and
 * is taken out again if it is refused or fails.
 */
export type AcceptedBySecond = ReadonlyArray<readonly [number, number]>;

export interface LearnedBucket {
  /** Calls per millisecond. */
  readonly perMs: number;
  /** How many milliseconds' worth of calls may start at once (at least one call). */
  readonly burstMs: number;
  /** Calls it holds (may be below zero while the calls it let through are paid back), at `levelAt`. */
  readonly level: number;
  readonly levelAt: number;
}

export interface LearnerState {
  readonly accepted: AcceptedBySecond;
  /** When the current busy phase began: the first call after an idle gap. */
  readonly busySince: number | null;
  /** The last time a call was started or ended. */
  readonly lastCallAt: number | null;
  /** The last fault of the API (5xx, 529, no connection). */
  readonly lastFaultAt: number | null;
  readonly bucket: LearnedBucket | null;
  /** The learned rate calls were paced at when the API last refused one (per ms). */
  readonly ceilingPerMs: number | null;
}

export const idleLearner: LearnerState = { accepted: [], busySince: null, lastCallAt: null, lastFaultAt: null, bucket: null, ceilingPerMs: null };

/** The evidence looked at: at most the last minute (the API's limits are per minute). */
const EVIDENCE_MS = 60_000;
/** A gap without calls this long ends a busy phase, and what was learned. */
export const IDLE_MS = 30_000;
/** Fewer accepted calls than this, or a stretch shorter than MIN_SPAN_MS, teach nothing. */
export const MIN_EVIDENCE = 10;
export const MIN_SPAN_MS = 2000;
export const FLOOR_PER_MINUTE = 30;
/** Growth of the learned rate per second it holds calls back, below 90% of the ceiling (or with none), and above. */
export const PROBE_FAST = 0.1;
export const PROBE_NEAR = 0.005;
/** A later 429 leaves the rate between these shares of the rate refused at. */
const DECREASE_MIN = 0.85;
const BURST_MS = 1000;
/** A 429 this soon after a pause ended answers the burst that went out then. */
const BURST_BLAME_MS = 250;
/** A call that finds fewer calls than this in the bucket was held back by it (the bucket sets the pace). */
const HELD_BACK_LEVEL = 2;
export const FAULT_QUIET_MS = 30_000;

/** The learner as a call starts at `now`: after an idle gap it starts over, and a busy phase begins. */
export function awake(learner: LearnerState, now: number): LearnerState {
  if (learner.lastCallAt !== null && now - learner.lastCallAt <= IDLE_MS) return learner;
  return { ...idleLearner, lastFaultAt: learner.lastFaultAt, busySince: now };
}

/** The learned rate (calls per ms); null when nothing is learned. */
export function learnedRate(learner: LearnerState): number | null {
  return learner.bucket?.perMs ?? null;
}

function levelNow(bucket: LearnedBucket, now: number): number {
  return Math.min(Math.max(1, bucket.perMs * bucket.burstMs), bucket.level + bucket.perMs * Math.max(0, now - bucket.levelAt));
}

/** Milliseconds until the learned bucket lets one more call start (0: now, or nothing learned). */
export function learnedWait(learner: LearnerState, now: number): number {
  const bucket = learner.bucket;
  if (!bucket) return 0;
  const level = levelNow(bucket, now);
  return level >= 1 ? 0 : (1 - level) / bucket.perMs;
}

/** Adds `change` to the count of the second `at` falls in, dropping seconds older than the evidence. */
function counted(accepted: AcceptedBySecond, at: number, change: number, now: number): AcceptedBySecond {
  const second = Math.floor(at / 1000);
  const oldest = Math.floor((now - EVIDENCE_MS) / 1000);
  const out: Array<readonly [number, number]> = [];
  let found = false;
  for (const [s, count] of accepted) {
    if (s < oldest) continue;
    if (s === second) {
      found = true;
      if (count + change > 0) out.push([s, count + change]);
    } else out.push([s, count]);
  }
  if (!found && change > 0 && second >= oldest) out.push([second, change]);
  return out;
}

/**
 * A call started at `now` (the caller waited for learnedWait first): it counts as accepted until
 * it is refused or fails, and a bucket that held it back grows (probing).
 */
export function learnerAdmitted(learner: LearnerState, now: number): LearnerState {
  const awoken = awake(learner, now);
  let bucket = awoken.bucket;
  if (bucket) {
    const level = levelNow(bucket, now);
    const near = awoken.ceilingPerMs !== null && bucket.perMs >= 0.9 * awoken.ceilingPerMs;
    // Held back since the last call (at most a second of it counts): the rate grows for that long.
    const heldMs = level < HELD_BACK_LEVEL ? Math.min(1000, Math.max(0, now - bucket.levelAt)) : 0;
    const perMs = bucket.perMs * (1 + ((near ? PROBE_NEAR : PROBE_FAST) * heldMs) / 1000);
    bucket = { ...bucket, perMs, level: level - 1, levelAt: now };
  }
  return { ...awoken, bucket, accepted: counted(awoken.accepted, now, 1, now), lastCallAt: now, busySince: awoken.busySince ?? now };
}

/** A call was answered, at `now`. */
export function learnerAccepted(learner: LearnerState, now: number): LearnerState {
  return { ...learner, lastCallAt: Math.max(learner.lastCallAt ?? now, now) };
}

/** A call that started at `startedAt` (null: not known any more) was not accepted (refused, or failed): it no longer counts. */
function notAccepted(learner: LearnerState, startedAt: number | null, now: number): LearnerState {
  const accepted = startedAt === null ? learner.accepted : counted(learner.accepted, startedAt, -1, now);
  return { ...learner, accepted, lastCallAt: Math.max(learner.lastCallAt ?? now, now) };
}

/** What the evidence says at `now`: the calls accepted since the busy phase began (at most a minute), and over how long. */
export function evidence(learner: LearnerState, now: number): { readonly accepted: number; readonly spanMs: number } {
  const from = Math.max(learner.busySince ?? now, now - EVIDENCE_MS);
  let accepted = 0;
  for (const [second, count] of learner.accepted) if ((second + 1) * 1000 > from) accepted += count;
  return { accepted, spanMs: now - from };
}

/**
 * A 429 at `now`, for a call that started at `startedAt`: learn, when the evidence is enough and
 * the 429 is a limit, not a fault. `pauseEndedAt`: when the last retry-after pause ended (the
 * burst after it goes out then).
 */
export function learnerRefused(learner: LearnerState, now: number, retryAfterMs: number | null, startedAt: number | null, pauseEndedAt: number): LearnerState {
  const seen = notAccepted(learner, startedAt, now);
  if (retryAfterMs === null) return seen;
  if (learner.lastFaultAt !== null && now - learner.lastFaultAt < FAULT_QUIET_MS) return seen;
  // Refused during the pause of an earlier 429 (a call that started before it): the same event.
  if (now < pauseEndedAt) return seen;
  const known = seen.bucket;
  if (known && now - pauseEndedAt < BURST_BLAME_MS && known.perMs * known.burstMs >= 2) {
    // Refused as the burst after a pause went out (a burst of two calls or more): a smaller burst, the same rate.
    return { ...seen, bucket: { ...known, burstMs: Math.max(1 / known.perMs, known.burstMs / 2), level: 0, levelAt: now } };
  }
  const { accepted, spanMs } = evidence(seen, now);
  if (!known && (accepted < MIN_EVIDENCE || spanMs < MIN_SPAN_MS)) return seen;
  const estimate = Math.max(FLOOR_PER_MINUTE / 60_000, accepted / spanMs);
  // Refused at the learned rate: the limit is at most that, and probably a little below.
  const perMs = known ? Math.min(known.perMs, Math.max(DECREASE_MIN * known.perMs, estimate)) : estimate;
  // Empty now: it refills during the retry-after pause, to a burst when the pause ends.
  return { ...seen, ceilingPerMs: known?.perMs ?? seen.ceilingPerMs, bucket: { perMs, burstMs: known?.burstMs ?? BURST_MS, level: 0, levelAt: now } };
}

/** A call that started at `startedAt` failed at `now`; `fault`: the API failed (5xx, 529, no connection), and 429s near it are read as faults. */
export function learnerFailed(learner: LearnerState, now: number, startedAt: number | null, fault: boolean): LearnerState {
  const seen = notAccepted(learner, startedAt, now);
  return fault ? { ...seen, lastFaultAt: now } : seen;
}
