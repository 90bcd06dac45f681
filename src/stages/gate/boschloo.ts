// Boschloo's exact unconditional test, one-sided, for two samples of k trials each: did the
// candidate pass less often than the baseline? It orders the tables by Fisher's p-value, like
// Fisher's test, but instead of conditioning on the total number of passes it takes the
// worst case over the unknown common pass chance π:
//
//   p(b, c) = sup over π in [0, 1] of P_π( Fisher p(B, C) <= Fisher p(b, c) ),  B, C ~ Binomial(k, π)
//
// It is exact (valid for every π) and never less powerful than Fisher's test: for every π,
// P_π(Fisher p <= f) <= f, so p(b, c) <= Fisher p(b, c). With k trials a side its smallest
// p-value is 4^-k (k/k against 0/k, at π = 1/2) against Fisher's 1 / C(2k, k), so a case can be
// confirmed with about one trial less on each side.
//
// The supremum is bounded from above, not estimated: on each interval [π0, π1] of a grid,
// π^s (1-π)^(2k-s) <= π1^s (1-π0)^(2k-s), so the largest interval bound is at least the true
// supremum (here within about 1% of it). A p-value that is never below the exact one keeps the
// test valid; the result is also capped by Fisher's p-value, which is never below it either.
import { fisherDropPValue } from './significance.ts';

const GRID = 4000;
const tables = new Map<number, Float64Array>();

function choose(n: number, k: number): number {
  let value = 1;
  for (let i = 1; i <= k; i += 1) value = (value * (n - k + i)) / i;
  return value;
}

/** Per grid interval [π0, π1]: (1-π0)^(2k) and π1 / (1-π0), so a bound is one Horner pass. */
function gridFor(k: number): { readonly scale: Float64Array; readonly ratio: Float64Array } {
  const scale = new Float64Array(GRID);
  const ratio = new Float64Array(GRID);
  for (let j = 0; j < GRID; j += 1) {
    const low = j / GRID;
    const high = (j + 1) / GRID;
    scale[j] = (1 - low) ** (2 * k);
    ratio[j] = high / (1 - low);
  }
  return { scale, ratio };
}

/** The supremum over π of Σ_s weights[s] π^s (1-π)^(2k-s), bounded from above on the grid. */
function supremumBound(weights: Float64Array, grid: { readonly scale: Float64Array; readonly ratio: Float64Array }): number {
  let best = 0;
  const top = weights.length - 1;
  for (let j = 0; j < GRID; j += 1) {
    const x = grid.ratio[j] as number;
    let sum = 0;
    for (let s = top; s >= 0; s -= 1) sum = sum * x + (weights[s] as number);
    sum *= grid.scale[j] as number;
    if (sum > best) best = sum;
  }
  return Math.min(1, best);
}

/** Every p(b, c) for k trials a side, computed once per k: tables nest as the Fisher p grows. */
function tableFor(k: number): Float64Array {
  const cached = tables.get(k);
  if (cached) return cached;
  const cells: Array<{ b: number; c: number; fisher: number }> = [];
  for (let b = 0; b <= k; b += 1) for (let c = 0; c <= k; c += 1) cells.push({ b, c, fisher: fisherDropPValue(b, k, c, k) });
  cells.sort((x, y) => x.fisher - y.fisher);
  const weights = new Float64Array(2 * k + 1);
  const grid = gridFor(k);
  const table = new Float64Array((k + 1) * (k + 1));
  for (let i = 0; i < cells.length; ) {
    // Cells with the same Fisher p (to rounding) enter the region together.
    let j = i;
    const level = (cells[i] as { fisher: number }).fisher;
    while (j < cells.length && (cells[j] as { fisher: number }).fisher <= level * (1 + 1e-12)) {
      const cell = cells[j] as { b: number; c: number };
      weights[cell.b + cell.c] = (weights[cell.b + cell.c] as number) + choose(k, cell.b) * choose(k, cell.c);
      j += 1;
    }
    const bound = supremumBound(weights, grid);
    for (let n = i; n < j; n += 1) {
      const cell = cells[n] as { b: number; c: number; fisher: number };
      table[cell.b * (k + 1) + cell.c] = Math.min(bound, cell.fisher);
    }
    i = j;
  }
  tables.set(k, table);
  return table;
}

/** One-sided p-value that the candidate (c of k passing) passes less often than the baseline (b of k). */
export function boschlooDropPValue(basePasses: number, candPasses: number, k: number): number {
  return tableFor(k)[basePasses * (k + 1) + candPasses] as number;
}

/** The smallest p-value k trials a side can give: k/k against 0/k. */
export function boschlooFloor(k: number): number {
  return boschlooDropPValue(k, 0, k);
}
