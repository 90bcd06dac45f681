// Exact tests for paired and per-case comparisons. No approximations: the counts are small.
import { logChoose } from './binomial.ts';

/** p at most bar, tolerant of the last bit of floating point (1/C(6,3) must meet 0.05). */
export const meets = (p: number, bar: number): boolean => p <= bar * (1 + 1e-9);

/** P(X >= k) for X ~ Binomial(n, 1/2). */
export function binomialUpperTail(n: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  let total = 0;
  for (let i = k; i <= n; i += 1) total += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, total);
}

/**
 * The exact McNemar (sign) test over discordant cases, one-sided: the chance of seeing at
 * least `worse` of `worse + better` discordant cases go the bad way if the candidate were no
 * worse than the baseline.
 */
export function signTestOneSided(worse: number, better: number): number {
  return binomialUpperTail(worse + better, worse);
}

/**
 * Fisher's exact test, one-sided, for one case: the chance that the candidate passes as rarely
 * as it did (or more rarely) if both versions passed at the same rate. Hypergeometric tail.
 */
export function fisherDropPValue(basePasses: number, baseTrials: number, candPasses: number, candTrials: number): number {
  const passes = basePasses + candPasses;
  const total = baseTrials + candTrials;
  const logDenominator = logChoose(total, passes);
  let p = 0;
  for (let x = 0; x <= candPasses; x += 1) {
    const y = passes - x;
    if (y < 0 || y > baseTrials || x > candTrials) continue;
    p += Math.exp(logChoose(candTrials, x) + logChoose(baseTrials, y) - logDenominator);
  }
  return Math.min(1, p);
}

/**
 * Holm's step-down adjustment: adjusted p-values for a family, in the input order. A case is
 * significant at family level L exactly when its adjusted p-value is at most L. Controls the
 * family-wise error under any dependence between the tests.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const adjusted = new Array<number>(m).fill(1);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/** The smallest one-sided Fisher p-value k trials per side can give: k/k against 0/k, 1 / C(2k, k). */
export function fisherFloor(k: number): number {
  return Math.exp(-logChoose(2 * k, k));
}

/** The fewest trials per side at which a single case can reach `level` under a test with this floor, or null beyond `cap`. */
export function trialsToReach(level: number, cap: number, floor: (k: number) => number = fisherFloor): number | null {
  for (let k = 1; k <= cap; k += 1) if (floor(k) <= level * (1 + 1e-9)) return k;
  return null;
}

/**
 * Weighted Holm (Holm 1979, with weights): adjusted p-values in the input order. At each step the
 * hypothesis with the smallest p / w among those left is rejected when p ≤ w · L / (sum of the
 * weights left). Weights fixed before the data the p-values rest on keep the family-wise error at
 * most L under any dependence; with equal weights this is Holm's procedure.
 */
export function weightedHolmAdjust(pValues: readonly number[], weights: readonly number[]): number[] {
  const order = pValues.map((p, i) => ({ p, w: weights[i] as number, i })).sort((a, b) => a.p / a.w - b.p / b.w || a.i - b.i);
  let left = order.reduce((sum, h) => sum + h.w, 0);
  const adjusted = new Array<number>(pValues.length).fill(1);
  let running = 0;
  for (const { p, w, i } of order) {
    running = Math.max(running, Math.min(1, (p / w) * left));
    adjusted[i] = running;
    left -= w;
  }
  return adjusted;
}

/**
 * Benjamini–Hochberg adjusted p-values (the false discovery rate), in the input order: a case is
 * named at FDR q when its adjusted p-value is at most q. Controls the expected share of false
 * names among the named for independent tests; it says nothing of the family-wise error.
 */
export function benjaminiHochbergAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => b.p - a.p || b.i - a.i);
  const adjusted = new Array<number>(m).fill(1);
  let running = 1;
  order.forEach(({ p, i }, fromTop) => {
    const rank = m - fromTop;
    running = Math.min(running, (p * m) / rank);
    adjusted[i] = Math.min(1, running);
  });
  return adjusted;
}

/**
 * How the gate spends alpha, by the union bound. Two stages: an eighth on the paired sign test over
 * the moved cases' first fresh pairs, an eighth on the infrastructure balance test (is the
 * candidate's side failing for infrastructure reasons where the baseline's, run beside it, is
 * not?), three quarters on the family of per-case regression tests. One stage (runs that cannot be
 * re-run, so no fresh trials and no balance test): a quarter on the paired test. An unchanged agent
 * is rejected only through one of these, so at most alpha of the time. Fixes are a separate
 * question (is a fix real?) with its own guarantee: a case is credited as a fix it is not at most
 * alpha of the time.
 */
export function splitAlpha(
  alpha: number,
  stages: 'one' | 'two' = 'two',
): { readonly aggregate: number; readonly infrastructure: number; readonly regression: number; readonly fix: number } {
  const regression = alpha - alpha / 4;
  return stages === 'two' ? { aggregate: alpha / 8, infrastructure: alpha / 8, regression, fix: alpha } : { aggregate: alpha / 4, infrastructure: 0, regression, fix: alpha };
}
