import { describe, expect, it } from 'vitest';
import type { CaseRecord } from '../../src/domain/record.ts';
import { changedCases, compareRuns, type ComparePolicy } from '../../src/stages/gate/compare.ts';
import { classifyCases } from '../../src/stages/gate/stochastic.ts';
import { summarizeCases } from '../../src/stages/gate/flips.ts';

const policy: ComparePolicy = { policy: 'auto', maxP2F: 0, maxP2FRate: 0.02, minF2P: 1, minHitRate: 0.5, maxUngradedShare: 0.1, alpha: 0.05, maxSignificantRegressions: 0 };

/** Records from trial strings per case: "1101" = pass, pass, fail, pass. */
function records(outcomes: Record<string, string>, label = 'x'): CaseRecord[] {
  return Object.entries(outcomes).flatMap(([caseId, trials]) =>
    [...trials].map((t, trial) => ({
      caseId,
      trial,
      status: 'ok' as const,
      output: null,
      traceRef: '',
      scorer: { pass: t === '1', checks: [] },
      critic: { pass: t === '1', label: t === '1' ? 'ok' : label, description: '' },
      pass: t === '1',
      error: null,
    })),
  );
}

const stable = (n: number, trials: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${String(i).padStart(2, '0')}`, trials]));

describe('case classes', () => {
  it('tells consistent regressions and fixes from flaky and unchanged cases', () => {
    const classes = classifyCases(
      summarizeCases(records({ a: '1111', b: '0000', c: '1010', d: '1111', e: '1111', f: '0000' })),
      summarizeCases(records({ a: '0000', b: '1111', c: '1010', d: '1111', e: '0000', f: '0000' })),
      new Set(['e']),
    );
    expect(Object.fromEntries(classes.map((c) => [c.caseId, c.kind]))).toEqual({ a: 'regression', b: 'fix', c: 'flaky', d: 'unchanged', e: 'flaky', f: 'unchanged' });
  });
});

describe('the stochastic gate', () => {
  it('rejects ten consistent regressions and lists exactly them', () => {
    const before = { ...stable(30, '1111'), f1: '1010', f2: '0110' };
    const after = { ...before, ...Object.fromEntries(Object.keys(stable(10, '')).map((id) => [id, '0000'])) };
    const { decision } = compareRuns({ baseline: records(before), candidate: records(after), policy, plannedTrials: 4, knownFlaky: new Set(), intent: null });
    expect(decision.policy).toBe('stochastic');
    expect(decision.verdict).toBe('reject');
    expect(decision.significant.regressions).toEqual(Object.keys(stable(10, '')));
    expect(decision.pValue).toBeCloseTo(2 ** -10, 10);
  });

  it('accepts noise: flaky cases changing within noise are not regressions', () => {
    const before = { ...stable(20, '1111'), f1: '1100', f2: '0110', f3: '1110' };
    const after = { ...stable(20, '1111'), f1: '1000', f2: '1110', f3: '0111' };
    const { decision } = compareRuns({ baseline: records(before), candidate: records(after), policy, plannedTrials: 4, knownFlaky: new Set(), intent: null });
    expect(decision.verdict).toBe('accept');
    // f3 varies too, but its pass rate did not change: not a flip at all.
    expect(decision.flaky).toEqual(['f1', 'f2']);
    expect(decision.p2f).toEqual([]);
    expect(decision.significant.regressions).toEqual([]);
  });

  it('counts a flaky case whose pass rate drops significantly', () => {
    const before = { ...stable(5, '1111'), f: '11111111' };
    const after = { ...stable(5, '1111'), f: '10000000' };
    const { decision } = compareRuns({ baseline: records(before), candidate: records(after), policy, plannedTrials: 8, knownFlaky: new Set(['f']), intent: null });
    expect(decision.significant.regressions).toEqual(['f']);
    expect(decision.verdict).toBe('reject');
  });

  it('rejects a candidate that is worse overall by the paired test even when each drop is small', () => {
    const before = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, '1110']));
    const after = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, '1000']));
    const { decision } = compareRuns({ baseline: records(before), candidate: records(after), policy, plannedTrials: 4, knownFlaky: new Set(), intent: null });
    expect(decision.significant.regressions).toEqual([]);
    expect(decision.pValue).toBeLessThan(0.05);
    expect(decision.verdict).toBe('reject');
    expect(decision.reasons.join(' ')).toMatch(/paired sign test over 12 discordant cases/);
  });

  it('requires fixes and a hit rate when the candidate states an intent', () => {
    const before = { ...stable(5, '1111'), a: '0000', b: '0000' };
    const after = { ...stable(5, '1111'), a: '1111', b: '0000' };
    const base = { baseline: records(before, 'tool_error'), candidate: records(after), policy, plannedTrials: 4, knownFlaky: new Set<string>() };
    expect(compareRuns({ ...base, intent: { targets: ['tool_error'], rationale: 'r' } }).decision.verdict).toBe('accept');
    expect(compareRuns({ ...base, intent: { targets: ['wrong_order'], rationale: 'r' } }).decision.verdict).toBe('reject');
    expect(compareRuns({ ...base, candidate: records(before), intent: { targets: ['tool_error'], rationale: 'r' } }).decision.verdict).toBe('reject');
  });

  it('keeps the paper-faithful gate as the default with one trial per case', () => {
    const { decision } = compareRuns({ baseline: records({ a: '1', b: '0' }), candidate: records({ a: '0', b: '1' }), policy, plannedTrials: 1, knownFlaky: new Set(), intent: null });
    expect(decision.policy).toBe('flips');
    expect(decision.p2f).toEqual(['a']);
    expect(decision.verdict).toBe('reject');
  });

  it('re-runs only the cases whose outcome changed', () => {
    expect(changedCases(records({ a: '1', b: '0', c: '1', d: '0' }), records({ a: '0', b: '1', c: '1', d: '0' }))).toEqual(['a', 'b']);
  });
});
