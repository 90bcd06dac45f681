// Exact tests for paired and per-case comparisons. No approximations: the counts are small.

/** log C(n, k), exact enough for n up to millions. */
function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i += 1) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}

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
 * How the gate spends alpha, by the union bound: a third on the paired sign test over all
 * cases, two thirds on the family of per-case regression tests (and, separately, the same on
 * the fixes). The per-case tests are discrete and rarely use their whole share, so the larger
 * share buys fewer confirmation trials without raising the real error rate much.
 */
export function splitAlpha(alpha: number): { readonly aggregate: number; readonly family: number } {
  return { aggregate: alpha / 3, family: (2 * alpha) / 3 };
}
