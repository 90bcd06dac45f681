// The gate's arithmetic, each piece against an independent value: scipy, hand computation,
// GATE-NOTES' power table, or a Monte Carlo run of the planner itself.
import { describe, expect, it } from 'vitest';
import { betaBinomialPmf, binomialPmf } from '../../src/stages/gate/binomial.ts';
import { boschlooDropPValue, boschlooFloor } from '../../src/stages/gate/boschloo.ts';
import { judgeLook, looksOf, type CaseDesign } from '../../src/stages/gate/case-design.ts';
import { designCase } from '../../src/stages/gate/confirmation.ts';
import { aggregateDetectableDrop, designTrials, detectableChange, DESIGN_POWER, fixedPower, sequentialPower, trialsNeeded } from '../../src/stages/gate/power.ts';
import { benjaminiHochbergAdjust, fisherDropPValue, fisherFloor, holmAdjust, splitAlpha, trialsToReach, weightedHolmAdjust } from '../../src/stages/gate/significance.ts';
import { seededRandom } from '../../bench/lib/simulated-agent.ts';

const policy = { alpha: 0.05, maxConfirmTrials: 32, detectableDrop: 0.6, futility: 0.33 };
const regression = (bar: number, prior = { passes: 3, graded: 3 }, overrides: Partial<typeof policy> = {}): CaseDesign =>
  designCase({ caseId: 'a', direction: 'regression', weight: 4, bar, baseline: prior }, { ...policy, ...overrides }).design;

describe('exact tests', () => {
  it('the Fisher floor is 1 / C(2k, k), and the trials a level needs follow from it', () => {
    expect(fisherFloor(2)).toBeCloseTo(1 / 6, 12);
    expect(fisherFloor(6)).toBeCloseTo(1 / 924, 12);
    expect(fisherDropPValue(6, 6, 0, 6)).toBeCloseTo(1 / 924, 12);
    expect(trialsToReach(0.05, 10)).toBe(3);
    expect(trialsToReach(1e-9, 10)).toBeNull();
  });

  it("Boschloo's unconditional test matches scipy.stats.boschloo_exact from above, within 1%, and never exceeds Fisher", () => {
    // scipy.stats.boschloo_exact([[b, c], [k - b, k - c]], alternative='greater').pvalue
    const scipy: Array<[number, number, number, number]> = [
      [4, 4, 0, 0.00390625],
      [6, 6, 0, 0.000244140625],
      [6, 6, 1, 0.003173828125],
      [6, 5, 1, 0.019287109375],
      [8, 7, 2, 0.0106353759765625],
      [10, 8, 3, 0.020694732666015646],
      [3, 2, 1, 0.34375],
    ];
    for (const [k, b, c, expected] of scipy) {
      const p = boschlooDropPValue(b, c, k);
      expect(p).toBeGreaterThanOrEqual(expected);
      expect(p).toBeLessThan(expected * 1.01);
      expect(p).toBeLessThanOrEqual(fisherDropPValue(b, k, c, k));
    }
    // Its floor is 4^-k (k/k against 0/k at π = 1/2), bounded from above within 1%.
    expect(boschlooFloor(8)).toBeGreaterThanOrEqual(4 ** -8);
    expect(boschlooFloor(8)).toBeLessThan(1.01 * 4 ** -8);
  });

  it("Holm, weighted Holm and Benjamini–Hochberg adjust as computed by hand (R's p.adjust for the first and last)", () => {
    // sorted 0.01, 0.02, 0.03, 0.5 → 4·0.01, max(0.04, 3·0.02), max(0.06, 2·0.03), max(0.06, 0.5)
    expect(holmAdjust([0.03, 0.01, 0.5, 0.02]).map((p) => Number(p.toFixed(6)))).toEqual([0.06, 0.04, 0.5, 0.06]);
    expect(weightedHolmAdjust([0.03, 0.01, 0.5, 0.02], [1, 1, 1, 1])).toEqual(holmAdjust([0.03, 0.01, 0.5, 0.02]));
    // Weights 4, 1, 1 (total 6): 0.004/4 · 6 = 0.006 first; then 0.01 · 2 = 0.02; then 0.04 · 1.
    expect(weightedHolmAdjust([0.004, 0.01, 0.04], [4, 1, 1]).map((p) => Number(p.toFixed(6)))).toEqual([0.006, 0.02, 0.04]);
    // p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02
    expect(benjaminiHochbergAdjust([0.01, 0.04, 0.03, 0.005]).map((p) => Number(p.toFixed(6)))).toEqual([0.02, 0.04, 0.04, 0.02]);
  });

  it('alpha is split by the union bound over every route to rejection: two stages an eighth each for the paired and the infrastructure test, one stage a quarter for the paired test; three quarters for regressions, fixes at alpha', () => {
    const two = splitAlpha(0.05);
    expect([two.aggregate, two.infrastructure, two.regression, two.fix].map((x) => Number(x.toFixed(12)))).toEqual([0.00625, 0.00625, 0.0375, 0.05]);
    expect(two.aggregate + two.infrastructure + two.regression).toBeLessThanOrEqual(0.05 + 1e-15);
    const one = splitAlpha(0.05, 'one');
    expect([one.aggregate, one.infrastructure, one.regression].map((x) => Number(x.toFixed(12)))).toEqual([0.0125, 0, 0.0375]);
    expect(one.aggregate + one.regression).toBeLessThanOrEqual(0.05 + 1e-15);
  });
});

describe('probabilities', () => {
  it('binomial and beta-binomial masses match their closed forms and sum to one', () => {
    expect([...binomialPmf(4, 0.5)].map((p) => Number(p.toFixed(12)))).toEqual([0.0625, 0.25, 0.375, 0.25, 0.0625]);
    const beta = betaBinomialPmf(10, 1.5, 2.5);
    // C(10,3) B(4.5, 9.5) / B(1.5, 2.5), from Python's math.lgamma
    expect(beta[3]).toBeCloseTo(0.1361846923828128, 12);
    expect(beta.reduce((sum, p) => sum + p, 0)).toBeCloseTo(1, 12);
  });
});

describe('power', () => {
  it('the fixed-size power reproduces the table of detectable drops (K a side, m cases at (2α/3)/m, from 1 and from .9)', () => {
    const smallest = (k: number, bar: number, from: number): number | null => {
      for (let d = 1; d <= Math.round(from * 100); d += 1) if (fixedPower(k, from, from - d / 100, bar) >= 0.8) return d / 100;
      return null;
    };
    const table: Array<[number, number, number, number]> = [
      [6, 1, 0.74, 0.74],
      [8, 10, 0.81, 0.81],
      [12, 10, 0.66, 0.67],
      [16, 10, 0.52, 0.59],
      [24, 100, 0.49, 0.58],
    ];
    for (const [k, m, from1, from9] of table) {
      const bar = (2 * 0.05) / 3 / m;
      expect([smallest(k, bar, 1), smallest(k, bar, 0.9)]).toEqual([from1, from9]);
    }
  });

  it('designs the fewest trials with 90% power against the stated drop, more for a smaller level, capped', () => {
    const share = (k: number) => (k > 12 ? 0.7 : k > 6 ? 0.8 : 1);
    const one = designTrials(0.0375, 0.6, 32, share);
    const ten = designTrials(0.00375, 0.6, 32, share);
    expect(one.reached && ten.reached).toBe(true);
    expect(ten.trialsPerSide).toBeGreaterThan(one.trialsPerSide);
    for (const { trialsPerSide: k } of [one, ten]) {
      const worst = (n: number) => Math.min(...[0.6, 0.7, 0.8, 0.9, 1].map((p) => fixedPower(n, p, p - 0.6, 0.0375 * share(n))));
      expect(worst(k)).toBeGreaterThanOrEqual(DESIGN_POWER - 1e-9);
    }
    expect(designTrials(1e-12, 0.6, 10, share)).toEqual({ trialsPerSide: 10, reached: false });
  });

  it('a case that did not change is confirmed at most its level, exactly, whatever its pass chance (looks, curtailment and futility included)', () => {
    for (const bar of [0.0375, 0.005]) {
      const design = regression(bar);
      for (const p of [0.1, 0.3, 0.5, 0.7, 0.9, 1]) expect(sequentialPower(design, p, p)).toBeLessThanOrEqual(bar);
    }
  });

  it('the exact power of a design matches the planner run many times on simulated trials', () => {
    const design = regression(0.0075);
    const random = seededRandom(7);
    const runs = 4000;
    let confirmed = 0;
    for (let run = 0; run < runs; run += 1) {
      let hi = 0;
      let lo = 0;
      let n = 0;
      for (const look of looksOf(design.trialsPerSide)) {
        for (; n < look; n += 1) {
          if (random() < 0.8) hi += 1;
          if (random() < 0.3) lo += 1;
        }
        const verdict = judgeLook(design, hi, lo, n, []);
        if (verdict.kind === 'continue') continue;
        if (verdict.kind === 'significant') confirmed += 1;
        break;
      }
    }
    const exact = sequentialPower(design, 0.8, 0.3);
    // 4000 runs: a standard error below 0.008.
    expect(Math.abs(confirmed / runs - exact)).toBeLessThan(0.03);
  });

  it('states the smallest change a design confirms with 80% power; a design capped below what its level needs sees only larger ones', () => {
    const wide = detectableChange(regression(0.0375), 1) as number;
    const capped = detectableChange(regression(0.0375 / 20, { passes: 3, graded: 3 }, { maxConfirmTrials: regression(0.0375).trialsPerSide }), 1) as number;
    expect(wide).toBeGreaterThan(0);
    // K is designed per level, so an uncapped design sees about the stated drop at any level.
    expect(Math.abs((detectableChange(regression(0.0375 / 20), 1) as number) - wide)).toBeLessThan(0.08);
    expect(capped).toBeGreaterThan(wide);
    expect(sequentialPower(regression(0.0375), 1, 1 - wide)).toBeGreaterThanOrEqual(0.8);
    expect(sequentialPower(regression(0.0375), 1, 1 - wide + 0.01)).toBeLessThan(0.8);
    // With at most 4 trials a side, no drop at all reaches 80% at a level of 0.0001.
    expect(detectableChange(regression(0.0001, { passes: 3, graded: 3 }, { maxConfirmTrials: 4 }), 1)).toBeNull();
    const fix = designCase({ caseId: 'f', direction: 'fix', weight: 4, bar: 0.05, baseline: { passes: 0, graded: 3 } }, policy).design;
    expect(detectableChange(fix, 0)).toBeGreaterThan(0);
  });

  it('the trials a drop needs, and the common drop the paired test detects, shrink with more evidence', () => {
    const needed = trialsNeeded(0.0375 / 10, 0.8, 0.4, 1, 96) as number;
    expect(fixedPower(needed, 0.8, 0.4, 0.0375 / 10)).toBeGreaterThanOrEqual(0.8);
    expect(fixedPower(needed - 1, 0.8, 0.4, 0.0375 / 10)).toBeLessThan(0.8);
    expect(trialsNeeded(1e-15, 0.6, 0.5, 1, 20)).toBeNull();
    const few = aggregateDetectableDrop(20, 0.7, 0.0125) as number;
    const many = aggregateDetectableDrop(100, 0.7, 0.0125) as number;
    expect(many).toBeLessThan(few);
    expect(aggregateDetectableDrop(3, 0.7, 0.0125)).toBeNull();
  });
});
