import { describe, expect, it } from 'vitest';
import { collapsingRepeats } from '../../src/cli/repeated-lines.ts';

describe("a long-running command's repeated log line", () => {
  it('is written once, then counted: the count and the line again once per window, the count before another line', () => {
    let t = 0;
    const written: string[] = [];
    const say = collapsingRepeats((line) => written.push(line), { now: () => new Date(t) }, 30_000);
    for (; t < 10_000; t += 700) say('connect ECONNREFUSED 127.0.0.1:6379');
    expect(written).toEqual(['connect ECONNREFUSED 127.0.0.1:6379']);
    t = 31_000;
    say('connect ECONNREFUSED 127.0.0.1:6379');
    expect(written).toEqual(['connect ECONNREFUSED 127.0.0.1:6379', '(the line above 14 more times)', 'connect ECONNREFUSED 127.0.0.1:6379']);
    t += 100;
    say('connect ECONNREFUSED 127.0.0.1:6379');
    say('refused job 1a2b: a job of schema 2');
    expect(written.slice(3)).toEqual(['(the line above 1 more time)', 'refused job 1a2b: a job of schema 2']);
  });
});
