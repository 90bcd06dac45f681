import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterMs } from '../../src/adapters/engines/anthropic/rate-limits.ts';

describe('retry delays', () => {
  it.each<[string, number, number | null, number, number]>([
    ['the server hint, with no jitter drawn', 0, 1000, 0, 1000],
    ['the server hint plus up to as much again', 3, 1000, 0.999, 1999],
    ['no hint: 0.5 s at the first retry', 0, null, 0, 500],
    ['no hint: doubling', 2, null, 0.5, 3000],
    ['no hint: capped at 8 s (plus jitter)', 9, null, 0.25, 10_000],
  ])('%s', (_name, attempt, hint, random, expected) => {
    expect(backoffMs(attempt, hint, random)).toBe(expected);
  });

  it('spreads calls refused together over the retry-after instead of bringing them back at once', () => {
    const delays = Array.from({ length: 16 }, (_, i) => backoffMs(0, 1000, i / 16));
    expect(new Set(delays).size).toBe(16);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(900);
  });

  it.each<[string, Record<string, string>, number | null]>([
    ['retry-after-ms first', { 'retry-after-ms': '250', 'retry-after': '3' }, 250],
    ['retry-after in seconds', { 'retry-after': '2' }, 2000],
    ['retry-after as an HTTP date, counted from now', { 'retry-after': new Date(1_005_000).toUTCString() }, 4000],
    ['absent', {}, null],
    ['unreadable', { 'retry-after': 'soon' }, null],
  ])('reads the hint: %s', (_name, headers, expected) => {
    expect(retryAfterMs(new Headers(headers), 1_001_000)).toBe(expected);
  });
});
