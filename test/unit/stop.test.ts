import { describe, expect, it } from 'vitest';
import { stopReason, type IterationResult } from '../../src/pipeline/loop/stop.ts';

const policy = { maxIterations: 10, maxConsecutiveRejections: 3, minF2P: 2, patience: 2 };
const it_ = (kind: IterationResult['kind'], f2p: string[] = [], p2fRate = 0): IterationResult => ({ iteration: 0, kind, f2p, p2f: [], p2fRate });

describe('stop rules', () => {
  it.each<[string, IterationResult[], number, RegExp | null]>([
    ['keeps going while releases bring fixes', [it_('promoted', ['a', 'b', 'c'])], 5, null],
    ['stops when every case passes', [it_('promoted', ['a'])], 0, /every train case passes/],
    ['stops when the synthesizer has nothing', [it_('no_candidate')], 3, /no valid release candidate/],
    ['stops at the iteration limit', Array.from({ length: 10 }, () => it_('promoted', ['a', 'b', 'c'])), 3, /limit of 10/],
    ['stops after repeated rejections', [it_('promoted', ['a', 'b']), it_('rejected'), it_('rejected'), it_('rejected')], 3, /3 release candidates in a row/],
    ['does not count a rejection streak broken by a release', [it_('rejected'), it_('rejected'), it_('promoted', ['x', 'y']), it_('rejected')], 3, null],
    ['stops when fixes dry up', [it_('promoted', ['a', 'b', 'c']), it_('promoted', ['d']), it_('promoted', ['e'])], 3, /fixes dried up/],
    ['stops when the regression rate keeps rising', [it_('rejected', [], 0.01), it_('rejected', [], 0.02), it_('promoted', ['a', 'b'], 0.03)], 3, /regression rate rose/],
    ['stops when gains concentrate on cases that flip back and forth', [it_('promoted', ['a', 'b']), it_('promoted', ['a', 'b'])], 3, /overfitting/],
  ])('%s', (_name, history, failing, expected) => {
    const reason = stopReason(history, policy, failing);
    if (expected === null) expect(reason).toBeNull();
    else expect(reason).toMatch(expected);
  });
});
