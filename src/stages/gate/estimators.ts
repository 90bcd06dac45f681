// Repeated-trial estimators, per case from n graded trials of which c passed, averaged over cases.
//   pass@k = 1 - C(n-c, k) / C(n, k): the chance that at least one of k trials passes (HumanEval).
//   pass^k = C(c, k) / C(n, k): the chance that all k trials pass (tau-bench's reliability measure).
// Both are unbiased estimators from n >= k trials; products avoid huge binomials.

export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`pass@${k} needs at least ${k} trials, got ${n}`);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i += 1) allFail *= 1 - k / i;
  return 1 - allFail;
}

export function passHatK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`pass^${k} needs at least ${k} trials, got ${n}`);
  let all = 1;
  for (let i = 0; i < k; i += 1) all *= (c - i) / (n - i);
  return Math.max(0, all);
}

export interface CaseTrials {
  readonly passes: number;
  readonly graded: number;
}

export type EstimateTable = Record<string, number>;

/** pass@k and pass^k for k = 1 .. the fewest trials any case has, averaged over cases. */
export function estimateTables(cases: readonly CaseTrials[]): { passAt: EstimateTable; passHat: EstimateTable } {
  const graded = cases.filter((c) => c.graded > 0);
  const passAt: EstimateTable = {};
  const passHat: EstimateTable = {};
  if (graded.length === 0) return { passAt, passHat };
  const maxK = Math.min(...graded.map((c) => c.graded));
  for (let k = 1; k <= maxK; k += 1) {
    passAt[String(k)] = graded.reduce((sum, c) => sum + passAtK(c.graded, c.passes, k), 0) / graded.length;
    passHat[String(k)] = graded.reduce((sum, c) => sum + passHatK(c.graded, c.passes, k), 0) / graded.length;
  }
  return { passAt, passHat };
}
