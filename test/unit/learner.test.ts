// The learned bucket of an API without rate-limit headers (learner.ts), on simulated sequences of
// calls: every time is given, no clock is read.
import { describe, expect, it } from 'vitest';
import {
  awake,
  FLOOR_PER_MINUTE,
  idleLearner,
  learnedRate,
  learnedWait,
  learnerAccepted,
  learnerAdmitted,
  learnerFailed,
  learnerRefused,
  type LearnerState,
} from '../../src/adapters/engines/anthropic/learner.ts';

type Step =
  /** `count` calls started evenly from `from` to `to` (ms), each answered 200 ms later. */
  | { readonly calls: number; readonly from: number; readonly to: number }
  | { readonly refusedAt: number; readonly retryAfterMs: number | null }
  | { readonly faultAt: number };

/** Plays the steps; the retry-after of each 429 pauses every call, as the pace does. */
function play(steps: readonly Step[], start: LearnerState = idleLearner): LearnerState {
  let learner = start;
  let pauseEnd = 0;
  for (const step of steps) {
    if ('calls' in step) {
      for (let i = 0; i < step.calls; i += 1) {
        const at = step.from + ((step.to - step.from) * i) / Math.max(1, step.calls - 1);
        learner = learnerAccepted(learnerAdmitted(learner, at), at + 200);
      }
    } else if ('refusedAt' in step) {
      learner = learnerRefused(learnerAdmitted(learner, step.refusedAt), step.refusedAt, step.retryAfterMs, step.refusedAt, pauseEnd);
      pauseEnd = Math.max(pauseEnd, step.refusedAt + (step.retryAfterMs ?? 0));
    }
    else learner = learnerFailed(learnerAdmitted(learner, step.faultAt), step.faultAt, step.faultAt, true);
  }
  return learner;
}

const perMinute = (learner: LearnerState): number | null => {
  const rate = learnedRate(learner);
  return rate === null ? null : rate * 60_000;
};

describe('the learned bucket of an API that sends no rate-limit headers', () => {
  it.each<[string, readonly Step[], number, [number, number] | null]>([
    // The sequence that withdrew the first learned bucket (5b932de): a busy stretch, an idle
    // phase, a few calls, then 429s from injected faults. It learned two calls a minute from the
    // minute before the 429, and every call after it crawled.
    [
      'a 429 after an idle phase, a few calls into the new busy phase: nothing learned',
      [{ calls: 300, from: 0, to: 30_000 }, { calls: 3, from: 150_000, to: 151_000 }, { refusedAt: 151_500, retryAfterMs: 200 }],
      151_500,
      null,
    ],
    [
      'the same, with the idle phase shorter than the evidence window: still only the busy phase counts',
      [{ calls: 300, from: 0, to: 30_000 }, { calls: 3, from: 61_000, to: 62_000 }, { refusedAt: 62_500, retryAfterMs: 200 }],
      62_500,
      null,
    ],
    // Calls far apart (a coordinator between its phases), then a 429 from a fault: the withdrawn
    // bucket learned the 3 calls of the last minute over 40 s, 4.5 a minute, for every call after.
    [
      'calls far apart (one every 20 s), then a 429: nothing learned',
      [{ calls: 7, from: 0, to: 120_000 }, { refusedAt: 120_500, retryAfterMs: 1000 }],
      120_500,
      null,
    ],
    ['a 429 without retry-after: a fault, nothing learned', [{ calls: 200, from: 0, to: 20_000 }, { refusedAt: 20_000, retryAfterMs: null }], 20_000, null],
    [
      'a 429 within 30 s of a 5xx: a fault, nothing learned',
      [{ calls: 150, from: 0, to: 14_900 }, { faultAt: 15_000 }, { calls: 50, from: 15_100, to: 20_000 }, { refusedAt: 20_000, retryAfterMs: 1000 }],
      20_000,
      null,
    ],
    ['a 429 with little evidence (5 calls in a second): nothing learned', [{ calls: 5, from: 0, to: 1000 }, { refusedAt: 1000, retryAfterMs: 1000 }], 1000, null],
    // A token bucket of 10 a second (600 a minute) that let 10 more through at first: the
    // estimate is the limit or a little above it.
    ['a 429 in a busy phase: what the API accepted over it', [{ calls: 210, from: 0, to: 20_000 }, { refusedAt: 20_000, retryAfterMs: 1000 }], 20_000, [600, 660]],
    ['a 429 after a busy minute: the last minute only', [{ calls: 1500, from: 0, to: 150_000 }, { refusedAt: 150_000, retryAfterMs: 1000 }], 150_000, [590, 620]],
    [
      'a 429 a fault no longer explains (31 s after it): learned',
      [{ calls: 50, from: 0, to: 4900 }, { faultAt: 5000 }, { calls: 350, from: 5100, to: 40_000 }, { refusedAt: 40_000, retryAfterMs: 1000 }],
      40_000,
      [590, 620],
    ],
    ['never below the floor: 12 calls over a minute, then a 429', [{ calls: 12, from: 0, to: 29_000 }, { calls: 1, from: 58_000, to: 58_000 }, { refusedAt: 59_000, retryAfterMs: 1000 }], 59_000, [FLOOR_PER_MINUTE, FLOOR_PER_MINUTE]],
  ])('%s', (_name, steps, at, expected) => {
    const learner = play(steps);
    const rate = perMinute(learner);
    if (expected === null) {
      expect(rate).toBeNull();
      expect(learnedWait(learner, at)).toBe(0);
    } else {
      expect(rate).not.toBeNull();
      expect(rate as number).toBeGreaterThanOrEqual(expected[0]);
      expect(rate as number).toBeLessThanOrEqual(expected[1]);
    }
  });

  it('grows while it holds calls back, fast below the rate of the last 429 and slowly near it; not while fewer calls come; and starts over after 30 s without a call', () => {
    // A low estimate: the busy phase ramped up.
    let learner = play([{ calls: 30, from: 0, to: 6000 }, { refusedAt: 6000, retryAfterMs: 1000 }]);
    const learned = perMinute(learner) as number;
    expect(learned).toBeLessThan(400);
    // Fewer calls than it allows (one a second): no growth, nothing to learn from.
    learner = play([{ calls: 10, from: 7000, to: 16_000 }], learner);
    expect(perMinute(learner)).toBeCloseTo(learned, 6);
    // Calls as fast as it lets them, for 10 s: it grows, a tenth a second.
    const heldBack = (from: number, forMs: number) => {
      let now = from;
      while (now < from + forMs) {
        now += learnedWait(learner, now);
        learner = learnerAccepted(learnerAdmitted(learner, now), now + 200);
      }
      return now;
    };
    let now = heldBack(17_000, 10_000);
    expect(perMinute(learner)).toBeGreaterThan(learned * 1.8);
    // Refused at that rate (the pause of the last 429 long over): lowered, by at most 15%.
    const refusedAt = perMinute(learner) as number;
    learner = learnerRefused(learnerAdmitted(learner, now), now, 1000, now, 7000);
    expect(perMinute(learner)).toBeGreaterThanOrEqual(refusedAt * 0.85 - 1e-9);
    expect(perMinute(learner)).toBeLessThanOrEqual(refusedAt);
    // Near the rate refused at, probing is slow: 10 s of held-back calls add about 5%.
    const relearned = perMinute(learner) as number;
    now = heldBack(now + 1000, 10_000);
    expect(perMinute(learner)).toBeLessThan(Math.max(relearned, refusedAt * 0.9) * 1.07);
    // 30 s without a call: nothing learned any more.
    expect(awake(learner, now + 200 + 30_001).bucket).toBeNull();
    expect(awake(learner, now + 200 + 29_000).bucket).not.toBeNull();
  });

  it('reads a 429 as the burst after a pause went out as the burst\'s fault (the burst halves, not the rate), and one during the pause of another as the same event', () => {
    const learner = play([{ calls: 210, from: 0, to: 20_000 }, { refusedAt: 20_000, retryAfterMs: 1000 }]);
    const bucket = learner.bucket;
    expect(bucket?.burstMs).toBe(1000);
    // During the pause (a call that started before it): nothing changes but the count.
    const during = learnerRefused(learnerAdmitted(learner, 20_500), 20_500, 1000, 20_500, 21_000);
    expect(during.bucket?.perMs).toBe(bucket?.perMs);
    expect(during.bucket?.burstMs).toBe(bucket?.burstMs);
    // Just as the pause ended, with the burst going out: half the burst, the same rate.
    const burst = learnerRefused(learnerAdmitted(learner, 21_050), 21_050, 1000, 21_050, 21_000);
    expect(burst.bucket?.perMs).toBeCloseTo(bucket?.perMs as number, 9);
    expect(burst.bucket?.burstMs).toBe(500);
  });

  it('paces calls at the learned rate after the retry-after, a second of them at once', () => {
    const learner = play([{ calls: 210, from: 0, to: 20_000 }, { refusedAt: 20_000, retryAfterMs: 1000 }]);
    const rate = learnedRate(learner) as number;
    // Empty at the 429; refilled over the pause to about a second's worth, which go at once.
    let state = learner;
    let now = 21_000;
    let burst = 0;
    while (learnedWait(state, now) === 0 && burst < 100) {
      state = learnerAdmitted(state, now);
      burst += 1;
    }
    expect(burst).toBeGreaterThanOrEqual(9);
    expect(burst).toBeLessThanOrEqual(11);
    // Then one call per 1/rate.
    const wait = learnedWait(state, now);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(1 / rate);
    now += wait + 0.001;
    expect(learnedWait(state, now)).toBe(0);
  });
});
