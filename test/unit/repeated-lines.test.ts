import { describe, expect, it } from 'vitest';
import { collapsingRepeats } from '../../src/cli/repeated-lines.ts';

describe("a long-running command's repeated log line", () => {
  const REFUSED = 'connect ECONNREFUSED 127.0.0.1:6379';

  it('is written once, then counted at the end of its window, even when nothing comes after; another line first gets the count before it', () => {
    let t = 0;
    const written: string[] = [];
    const timers: Array<{ at: number; run: () => void }> = [];
    const log = collapsingRepeats((line) => written.push(line), { now: () => new Date(t) }, 30_000, (run, ms) => timers.push({ at: t + ms, run }));
    for (; t < 10_000; t += 700) log.repeating(REFUSED);
    expect(written).toEqual([REFUSED]);
    // Redis is back: nothing more is said, and the window's end writes the count.
    expect(timers.map((timer) => timer.at)).toEqual([30_000]);
    t = 30_000;
    timers.shift()?.run();
    expect(written).toEqual([REFUSED, `(the line above 14 more times: ${REFUSED})`]);
    // The same failure later is said again, and a note after one repeat gets that count first.
    t = 40_000;
    log.repeating(REFUSED);
    log.repeating(REFUSED);
    log.once('prepared 1a2b3c4d5e6f, the version published last');
    expect(written.slice(2)).toEqual([REFUSED, `(the line above 1 more time: ${REFUSED})`, 'prepared 1a2b3c4d5e6f, the version published last']);
    // The timer of that window finds nothing left to count.
    timers.shift()?.run();
    expect(written).toHaveLength(5);
  });
});
