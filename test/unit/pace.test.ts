// The pace of model calls (rate-limits.ts over pace.ts and learner.ts), played on a virtual
// clock against simulated APIs: minutes of calls, no wall-clock time and no timing assertion.
import { describe, expect, it } from 'vitest';
import { initialPace, type PaceState } from '../../src/adapters/engines/anthropic/pace.ts';
import { backoffMs, createRateLimiter, type PaceStore, type RateLimiter } from '../../src/adapters/engines/anthropic/rate-limits.ts';
import { seeded, virtualClock, type VirtualClock } from '../helpers/virtual-clock.ts';

type Answer = { readonly kind: 'ok' } | { readonly kind: '429'; readonly retryAfterMs: number | null } | { readonly kind: 'fault' };

/** An API as the fake's headerless mode: a token bucket of `perMinute`, `burst` at once, 429 with a whole-second retry-after. */
function tokenBucketApi(clock: VirtualClock, perMinute: number, burst: number) {
  const perMs = perMinute / 60_000;
  let level = burst;
  let at = clock.now();
  const accepted: number[] = [];
  let refused = 0;
  return {
    accepted,
    refused: () => refused,
    answer(): Answer {
      const now = clock.now();
      level = Math.min(burst, level + perMs * (now - at));
      at = now;
      if (level >= 1) {
        level -= 1;
        accepted.push(now);
        return { kind: 'ok' };
      }
      refused += 1;
      return { kind: '429', retryAfterMs: Math.ceil((1 - level) / perMs / 1000) * 1000 };
    },
  };
}

/** One call as messages-client makes it: wait for a permit, ask, and on a 429 wait a jittered retry-after and ask again. */
async function call(limiter: RateLimiter, clock: VirtualClock, answer: () => Answer, latencyMs: number, random: () => number, started?: (at: number) => void): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const permit = await limiter.acquire(clock.now() + 100_000_000);
    started?.(clock.now());
    const got = answer();
    if (got.kind === 'ok') {
      await clock.sleep(latencyMs);
      permit.succeeded({ input: 1000, output: 100 });
      return;
    }
    if (got.kind === '429') {
      permit.rateLimited(got.retryAfterMs);
      await clock.sleep(backoffMs(attempt, got.retryAfterMs, random()));
    } else {
      permit.failed(true);
      await clock.sleep(backoffMs(attempt, null, random()));
    }
  }
}

/** `total` calls by `lanes` callers at once; resolves with when each ended. */
async function calls(options: { limiter: RateLimiter; clock: VirtualClock; answer: () => Answer; total: number; lanes: number; latencyMs: number; random: () => number }) {
  let next = 0;
  let ended = 0;
  const lane = async () => {
    while (next < options.total) {
      next += 1;
      await call(options.limiter, options.clock, options.answer, options.latencyMs, options.random);
      ended += 1;
    }
  };
  const running = Promise.all(Array.from({ length: options.lanes }, lane));
  expect(await options.clock.run(() => ended === options.total)).toBe(true);
  await running;
}

/** `total` calls against a headerless token-bucket API: the share of its limit used (its first burst left out, as bench/rate-limit.ts counts), and the 429s. */
async function headerless(perMinute: number, burst: number, latencyMs: number, lanes: number, total: number) {
  const clock = virtualClock(1_000_000);
  const api = tokenBucketApi(clock, perMinute, burst);
  await calls({ limiter: createRateLimiter(clock), clock, answer: api.answer, total, lanes, latencyMs, random: seeded(7) });
  expect(api.accepted).toHaveLength(total);
  const spanMinutes = ((api.accepted.at(-1) as number) - (api.accepted[0] as number)) / 60_000;
  return { used: (total - burst) / spanMinutes / perMinute, refused: api.refused() };
}

describe('the pace of calls to an API that sends no rate-limit headers', () => {
  // The API's bucket holds a second's worth or more (as the fake's and bench/rate-limit.ts's):
  // a pause of the whole-second retry-after costs nothing, and at least 95% of the limit is used.
  it.each([
    [600, 10, 200, 16, 400],
    [600, 10, 1000, 16, 400],
    [600, 10, 200, 64, 1000],
    [3000, 50, 300, 64, 2000],
  ])('uses at least 95 percent of a limit of %i a minute (burst %i, latency %i ms, %i at once, %i calls), few refused', async (perMinute, burst, latencyMs, lanes, total) => {
    const { used, refused } = await headerless(perMinute, burst, latencyMs, lanes, total);
    expect(used).toBeGreaterThanOrEqual(0.95);
    expect(refused).toBeLessThan(total * 0.05);
  });

  // Harder APIs, as measured: a bucket of half a second's worth, whose every 429 costs half a
  // second of the limit (the retry-after is a whole second) — 87%; 60 a minute (one a
  // second) with calls of 5 s — 86%; 2 s calls, where the window ramps up over much of a short
  // run — 74%. Never a collapse: the learned rate never spirals down.
  it.each([
    [600, 5, 50, 16, 400, 0.8],
    [60, 1, 5000, 16, 120, 0.8],
    [600, 5, 2000, 32, 400, 0.65],
  ])('keeps using a limit of %i a minute (burst %i, latency %i ms, %i at once, %i calls): at least %f of it', async (perMinute, burst, latencyMs, lanes, total, least) => {
    const { used, refused } = await headerless(perMinute, burst, latencyMs, lanes, total);
    expect(used).toBeGreaterThanOrEqual(least);
    expect(refused).toBeLessThan(total * 0.2);
  });

  it('after an idle phase, 429s and a 529 from faults slow nothing down (the sequence that withdrew the first learned bucket)', async () => {
    const clock = virtualClock(1_000_000);
    const limiter = createRateLimiter(clock);
    const random = seeded(3);
    // A busy phase against an API that takes everything.
    await calls({ limiter, clock, answer: () => ({ kind: 'ok' }), total: 300, lanes: 8, latencyMs: 50, random });
    // Two minutes without a call.
    const idle = clock.sleep(120_000);
    await clock.run(() => false);
    await idle;
    // Then faults: 429s with a short retry-after, a 529, a 429 without retry-after; then all well.
    const faults: Answer[] = [{ kind: '429', retryAfterMs: 200 }, { kind: 'fault' }, { kind: '429', retryAfterMs: 200 }, { kind: '429', retryAfterMs: null }];
    const from = clock.now();
    await calls({ limiter, clock, answer: () => faults.shift() ?? { kind: 'ok' }, total: 100, lanes: 8, latencyMs: 50, random });
    // 100 calls of 50 ms, up to 8 at once: a few seconds, with the pauses; a learned crawl (the
    // withdrawn bucket) would have spread them over minutes.
    expect(clock.now() - from).toBeLessThan(10_000);
  });
});

describe('a pace shared by several processes (one store)', () => {
  /** A store shared by limiters, as Redis is by processes: one state, the same time. */
  function sharedStore(clock: VirtualClock): PaceStore & { readonly state: () => PaceState } {
    let state = initialPace;
    return {
      shared: true,
      state: () => state,
      update: (change) => {
        const [next, result] = change(state, clock.now());
        state = next;
        return Promise.resolve(result);
      },
    };
  }

  it('keeps one window and one retry-after pause for all of them', async () => {
    const clock = virtualClock(1_000_000);
    const store = sharedStore(clock);
    const processes = ['a', 'b', 'c', 'd'].map((owner) => createRateLimiter(clock, store, owner));
    const random = seeded(11);
    const starts: number[] = [];
    let refusedAt: number | null = null;
    let answers = 0;
    const answer = (): Answer => {
      answers += 1;
      // The 9th call is refused with a pause of 2 s: nobody calls during it.
      if (answers === 9) {
        refusedAt = clock.now();
        return { kind: '429', retryAfterMs: 2000 };
      }
      return { kind: 'ok' };
    };
    const traced = (limiter: RateLimiter) => () => call(limiter, clock, answer, 100, random, (at) => starts.push(at));
    const all = processes.flatMap((limiter) => Array.from({ length: 5 }, () => traced(limiter)));
    let done = 0;
    const running = all.map((start) => start().then(() => (done += 1)));
    expect(await clock.run(() => done === all.length)).toBe(true);
    await Promise.all(running);
    // Four processes of five callers each: at first, four calls in flight in all (the first
    // window), not four per process.
    expect(starts.filter((at) => at === 1_000_000)).toHaveLength(4);
    // The 429 paused every process: no call started in the 2 s after it.
    expect(refusedAt).not.toBeNull();
    expect(starts.filter((at) => at > (refusedAt as number) && at < (refusedAt as number) + 2000)).toEqual([]);
    // Every call ended is out of the shared state.
    expect(Object.keys(store.state().calls)).toEqual([]);
  });
});
