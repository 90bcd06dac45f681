// The pace of an API that sends no rate-limit headers, only 429 with retry-after (as some
// gateways answer), learned from what it accepted. Pure: every function is given the time.
//
// At a 429 that carries a retry-after, the learned rate becomes the calls the API accepted over
// the stretch that ended in the 429: from the start of the current busy phase (the first call
// after an idle gap), at most the last minute. A token bucket that refused us had accepted at
// least its rate over that stretch (plus its burst), so the estimate is the limit or a little
// above it, never a fraction of it. What withdrew the first learned bucket (commit 5b932de)
// cannot happen here:
//   - a 429 after an idle phase came with a minute in which almost nothing was asked, and the
//     estimate was a crawl. Here the evidence starts at the busy phase, and a 429 with fewer
//     than MIN_EVIDENCE accepted calls, or over less than MIN_SPAN_MS, teaches nothing;
//   - the learned rate is never below FLOOR_PER_MINUTE, and grows by GROWTH_PER_MINUTE for
//     every minute without a 429, so an estimate that came out low does not last;
//   - a 429 without retry-after, or within FAULT_QUIET_MS of a fault (5xx, 529, no
//     connection), is an API in trouble, not a limit: it teaches nothing (it is still waited
//     out and retried by the client);
//   - IDLE_MS without a call and the learner starts over, as if it had never seen a 429.
// The bucket lets a second's worth of calls start at once (BURST_MS), so the calls refused
// together and the API's refilled burst meet again after the pause.

/**
 * Calls the API accepted, by the second they started in: [second, count]. A call counts from
 * when it starts (so the calls still in flight at a 429 count, whatever the API's latency), and
 * is taken out again if it is refused or fails.
 */
export type AcceptedBySecond = ReadonlyArray<readonly [number, number]>;

export interface LearnedBucket {
  /** Calls per millisecond when learned. */
  readonly perMs: number;
  readonly learnedAt: number;
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
}

export const idleLearner: LearnerState = { accepted: [], busySince: null, lastCallAt: null, lastFaultAt: null, bucket: null };

/** The evidence looked at: at most the last minute (the API's limits are per minute). */
const EVIDENCE_MS = 60_000;
/** A gap without calls this long ends a busy phase, and what was learned. */
export const IDLE_MS = 30_000;
/** Fewer accepted calls than this, or a stretch shorter than MIN_SPAN_MS, teach nothing. */
export const MIN_EVIDENCE = 10;
export const MIN_SPAN_MS = 2000;
export const FLOOR_PER_MINUTE = 30;
export const GROWTH_PER_MINUTE = 0.2;
const BURST_MS = 1000;
export const FAULT_QUIET_MS = 30_000;

/** The learner as a call starts at `now`: after an idle gap it starts over, and a busy phase begins. */
export function awake(learner: LearnerState, now: number): LearnerState {
  if (learner.lastCallAt !== null && now - learner.lastCallAt <= IDLE_MS) return learner;
  return { ...idleLearner, lastFaultAt: learner.lastFaultAt, busySince: now };
}

/** The learned rate now (calls per ms), grown since it was learned; null when nothing is learned. */
export function learnedRate(learner: LearnerState, now: number): number | null {
  const bucket = learner.bucket;
  if (!bucket) return null;
  return bucket.perMs * (1 + (GROWTH_PER_MINUTE * Math.max(0, now - bucket.learnedAt)) / 60_000);
}

function levelNow(bucket: LearnedBucket, rate: number, now: number): number {
  return Math.min(rate * BURST_MS, bucket.level + rate * Math.max(0, now - bucket.levelAt));
}

/** Milliseconds until the learned bucket lets one more call start (0: now, or nothing learned). */
export function learnedWait(learner: LearnerState, now: number): number {
  const rate = learnedRate(learner, now);
  if (!learner.bucket || rate === null) return 0;
  const level = levelNow(learner.bucket, rate, now);
  return level >= 1 ? 0 : (1 - level) / rate;
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

/** A call started at `now` (the caller waited for learnedWait first): it counts as accepted until it is refused or fails. */
export function learnerAdmitted(learner: LearnerState, now: number): LearnerState {
  const awoken = awake(learner, now);
  const rate = learnedRate(awoken, now);
  const bucket = awoken.bucket && rate !== null ? { ...awoken.bucket, level: levelNow(awoken.bucket, rate, now) - 1, levelAt: now } : awoken.bucket;
  return { ...awoken, bucket, accepted: counted(awoken.accepted, now, 1, now), lastCallAt: now, busySince: awoken.busySince ?? now };
}

/** A call that started at `startedAt` was answered, at `now`. */
export function learnerAccepted(learner: LearnerState, _startedAt: number, now: number): LearnerState {
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
 * A 429 at `now`, for a call that started at `startedAt`: learn the rate, when the evidence is
 * enough and the 429 is a limit, not a fault.
 */
export function learnerRefused(learner: LearnerState, now: number, retryAfterMs: number | null, startedAt: number | null): LearnerState {
  const seen = notAccepted(learner, startedAt, now);
  if (retryAfterMs === null) return seen;
  if (learner.lastFaultAt !== null && now - learner.lastFaultAt < FAULT_QUIET_MS) return seen;
  const { accepted, spanMs } = evidence(seen, now);
  if (accepted < MIN_EVIDENCE || spanMs < MIN_SPAN_MS) return seen;
  const perMs = Math.max(FLOOR_PER_MINUTE / 60_000, accepted / spanMs);
  // Empty now: it refills during the retry-after pause, to the API's burst when the pause ends.
  return { ...seen, bucket: { perMs, learnedAt: now, level: 0, levelAt: now } };
}

/** A call that started at `startedAt` failed at `now`; `fault`: the API failed (5xx, 529, no connection), and 429s near it are read as faults. */
export function learnerFailed(learner: LearnerState, now: number, startedAt: number | null, fault: boolean): LearnerState {
  const seen = notAccepted(learner, startedAt, now);
  return fault ? { ...seen, lastFaultAt: now } : seen;
}
