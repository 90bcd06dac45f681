// Probability mass functions the gate's power and futility computations share. Exact sums over
// small counts (a side has at most a few dozen fresh trials), in logs where terms get tiny.

let logFactorials = new Float64Array([0]);

/** log n!, from a table grown as needed. */
function logFactorial(n: number): number {
  if (n >= logFactorials.length) {
    const grown = new Float64Array(Math.max(n + 1, logFactorials.length * 2));
    grown.set(logFactorials);
    for (let i = logFactorials.length; i < grown.length; i += 1) grown[i] = (grown[i - 1] as number) + Math.log(i);
    logFactorials = grown;
  }
  return logFactorials[n] as number;
}

/** log C(n, k), exact enough for n up to millions. */
export const logChoose = (n: number, k: number): number => logFactorial(n) - logFactorial(k) - logFactorial(n - k);

/** P(X = k) for X ~ Binomial(n, p), for every k = 0..n. */
export function binomialPmf(n: number, p: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  if (p <= 0) pmf[0] = 1;
  else if (p >= 1) pmf[n] = 1;
  else for (let k = 0; k <= n; k += 1) pmf[k] = Math.exp(logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log(1 - p));
  return pmf;
}

/** P(X = k) for X ~ BetaBinomial(n, a, b): the next n trials' passes predicted from a Beta(a, b) belief. */
export function betaBinomialPmf(n: number, a: number, b: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  // P(0) = Π (b + i) / (a + b + i); then P(k + 1) / P(k) = (n - k)(k + a) / ((k + 1)(n - k - 1 + b)).
  let first = 1;
  for (let i = 0; i < n; i += 1) first *= (b + i) / (a + b + i);
  pmf[0] = first;
  for (let k = 0; k < n; k += 1) pmf[k + 1] = ((pmf[k] as number) * (n - k) * (k + a)) / ((k + 1) * (n - k - 1 + b));
  return pmf;
}
