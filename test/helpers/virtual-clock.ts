// A clock whose time moves only when the test says so: sleeps wait for virtual time, and
// `run` moves time from one sleep's end to the next once everything ready has run. Rate-limit
// tests play minutes of calls in milliseconds, the same way every time.
import type { RateLimitClock } from '../../src/adapters/engines/anthropic/rate-limits.ts';

export interface VirtualClock extends RateLimitClock {
  /** Runs until `done()` or until no sleep is left; false when it stopped with nothing left to wake. */
  run(done: () => boolean): Promise<boolean>;
}

export function virtualClock(start = 0): VirtualClock {
  let now = start;
  let order = 0;
  const sleepers: Array<{ readonly at: number; readonly order: number; readonly wake: () => void }> = [];
  // Every promise continuation ready now runs before the next macrotask.
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => now,
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        sleepers.push({ at: now + Math.max(0, ms), order: (order += 1), wake: resolve });
      }),
    async run(done) {
      for (;;) {
        await settle();
        await settle();
        if (done()) return true;
        if (sleepers.length === 0) return false;
        sleepers.sort((a, b) => a.at - b.at || a.order - b.order);
        const next = sleepers.shift() as (typeof sleepers)[number];
        now = Math.max(now, next.at);
        next.wake();
      }
    },
  };
}

/** A seeded generator of numbers in [0, 1), for jitter that is the same at every run. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}
