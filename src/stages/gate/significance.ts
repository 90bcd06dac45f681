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
