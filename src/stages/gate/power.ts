// What a confirmation design can see, computed exactly: the power of a case's test against a
// given pair of pass chances, the trials a side that buy a stated power, the smallest drop a
// design confirms with 80% power, and the same for the paired test over the moved cases.
import { binomialPmf } from './binomial.ts';
import { boschlooDropPValue } from './boschloo.ts';
import { judgeLook, looksOf, type CaseDesign } from './case-design.ts';
import { binomialUpperTail, fisherDropPValue, meets } from './significance.ts';

/** The power every decision states its detectable effects at. */
export const STATED_POWER = 0.8;
/** The power K is chosen for, against gate.detectableDrop. */
export const DESIGN_POWER = 0.9;
/** The fewest fresh trials a side a case is designed with. */
export const MIN_TRIALS = 4;
/** Beyond this, Boschloo's tables cost seconds to build; trial counts are then bounded with Fisher's test (never below Boschloo's p). */
const BOSCHLOO_MAX = 32;


/** The test of k trials a side at which hi passes against lo passes: Boschloo's where affordable, else Fisher's (conservative). */
function pValueAt(hi: number, lo: number, k: number): number {
  return k <= BOSCHLOO_MAX ? boschlooDropPValue(hi, lo, k) : fisherDropPValue(hi, k, lo, k);
}

/** The chance the full-size test with k trials a side is significant at `bar` when the sides pass with chances pHi > pLo. */
export function fixedPower(k: number, pHi: number, pLo: number, bar: number): number {
  const hi = binomialPmf(k, pHi);
  const lo = binomialPmf(k, pLo);
  let power = 0;
  for (let b = 0; b <= k; b += 1) {
    const pb = hi[b] as number;
    if (pb < 1e-15) continue;
    for (let c = 0; c <= k; c += 1) if (meets(pValueAt(b, c, k), bar)) power += pb * (lo[c] as number);
  }
  return power;
}

const powerGrid = (drop: number): number[] => {
  const grid: number[] = [];
  for (let i = 0; drop + i * 0.05 <= 1 + 1e-9; i += 1) grid.push(Math.min(1, drop + i * 0.05));
  return grid;
};

/** The worst power over every baseline chance from `drop` to 1 of a drop by `drop`. */
function worstPower(k: number, drop: number, bar: number): number {
  return Math.min(...powerGrid(drop).map((p) => fixedPower(k, p, p - drop, bar)));
}

/**
 * K for a case at level `bar`: the fewest trials a side (at least MIN_TRIALS) whose full-size
 * test has DESIGN_POWER against a drop of `drop` from any baseline chance, and, when `against` is
 * given, against that pair of pass chances too; capped at `cap` (then `reached` says whether the
 * drop alone had its power there). `finalShare` is the share of the bar the full-size test gets at that K.
 */
export function designTrials(
  bar: number,
  drop: number,
  cap: number,
  finalShare: (k: number) => number,
  against?: { readonly from: number; readonly to: number },
): { readonly trialsPerSide: number; readonly reached: boolean } {
  // Cases of one class share a level, and a level recurs from gate to gate: design it once.
  const key = `${bar}:${drop}:${cap}:${against ? `${against.from}>${against.to}` : ''}:${Array.from({ length: cap + 2 }, (_, k) => finalShare(k)).join(',')}`;
  const known = designMemo.get(key);
  if (known) return known;
  const enough = (k: number): boolean => worstPower(k, drop, bar * finalShare(k)) >= DESIGN_POWER;
  let design: { trialsPerSide: number; reached: boolean } | null = null;
  for (let k = Math.min(MIN_TRIALS, cap); k <= cap && design === null; k += 1) {
    if (enough(k) && (!against || fixedPower(k, against.from, against.to, bar * finalShare(k)) >= DESIGN_POWER)) design = { trialsPerSide: k, reached: true };
  }
  design ??= { trialsPerSide: cap, reached: enough(cap) };
  remember(designMemo, key, design);
  return design;
}

const designMemo = new Map<string, { readonly trialsPerSide: number; readonly reached: boolean }>();

/** A memo of a pure function, emptied when it grows past what a long benchmark needs. */
function remember<T>(memo: Map<string, T>, key: string, value: T): void {
  if (memo.size > 50_000) memo.clear();
  memo.set(key, value);
}

const sequentialMemo = new Map<string, number>();

/**
 * The exact chance that a case's confirmation, as designed (early looks, curtailment, futility),
 * ends significant when its hi side passes with chance pHi and its lo side with pLo. A dynamic
 * programme over the looks; no trial is an infrastructure error. Holm can only add to it.
 */
export function sequentialPower(design: CaseDesign, pHi: number, pLo: number): number {
  const key = JSON.stringify([design.direction, design.bar, design.trialsPerSide, design.interims, design.futility, pHi, pLo]);
  const memo = sequentialMemo.get(key);
  if (memo !== undefined) return memo;
  const k = design.trialsPerSide;
  let states = new Map<number, number>([[0, 1]]);
  let n = 0;
  let power = 0;
  const width = k + 1;
  for (const look of looksOf(k, design.interims)) {
    const step = look - n;
    const hiStep = binomialPmf(step, pHi);
    const loStep = binomialPmf(step, pLo);
    const next = new Map<number, number>();
    for (const [cell, chance] of states) {
      const hi0 = Math.floor(cell / width);
      const lo0 = cell % width;
      for (let x = 0; x <= step; x += 1) {
        const px = chance * (hiStep[x] as number);
        if (px < 1e-14) continue;
        for (let y = 0; y <= step; y += 1) {
          const py = px * (loStep[y] as number);
          if (py < 1e-14) continue;
          const to = (hi0 + x) * width + lo0 + y;
          next.set(to, (next.get(to) ?? 0) + py);
        }
      }
    }
    n = look;
    states = new Map();
    for (const [cell, chance] of next) {
      const verdict = judgeLook(design, Math.floor(cell / width), cell % width, n, []);
      if (verdict.kind === 'significant') power += chance;
      else if (verdict.kind === 'continue') states.set(cell, chance);
    }
  }
  const result = Math.min(1, power);
  remember(sequentialMemo, key, result);
  return result;
}

/**
 * The smallest change a design confirms with STATED_POWER, to two decimals: for a regression, the
 * drop from a baseline chance `from`; for a fix, the rise from a baseline chance `from`. Null
 * when not even the largest change is confirmed that often.
 */
export function detectableChange(design: CaseDesign, from: number): number | null {
  const largest = design.direction === 'regression' ? from : 1 - from;
  const powerAt = (change: number): number =>
    design.direction === 'regression' ? sequentialPower(design, from, from - change) : sequentialPower(design, from + change, from);
  if (largest <= 0 || powerAt(largest) < STATED_POWER) return null;
  let low = 0;
  let high = Math.round(largest * 100);
  // Power grows with the change: bisect over hundredths for the smallest that reaches it.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (powerAt(middle / 100) >= STATED_POWER) high = middle;
    else low = middle;
  }
  return high / 100;
}

/**
 * Fresh trials a side that would confirm a change from pHi to pLo with STATED_POWER at `bar`, searched
 * up to `cap`; null beyond it. Above 32 a side it is bounded with Fisher's test, so it may be a little high.
 */
export function trialsNeeded(bar: number, pHi: number, pLo: number, from: number, cap: number): number | null {
  const enough = (k: number): boolean => fixedPower(k, pHi, pLo, bar) >= STATED_POWER;
  // Power grows with the trials (up to the wobble of a discrete test): gallop, then bisect.
  let low = Math.max(1, from) - 1;
  let high = Math.max(1, from);
  while (high <= cap && !enough(high)) {
    low = high;
    high = Math.min(cap + 1, high * 2);
  }
  if (high > cap) return null;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (enough(middle)) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * The chances that a case passing with chance `before` on k trials does better (worse) than with
 * chance `after` on k trials: one trial a side is the 2×2 case, several are compared by pass counts.
 */
function discordance(before: number, after: number, trials: number): { readonly worse: number; readonly better: number } {
  if (trials === 1) return { worse: before * (1 - after), better: (1 - before) * after };
  const was = binomialPmf(trials, before);
  const now = binomialPmf(trials, after);
  let worse = 0;
  let better = 0;
  for (let a = 0; a <= trials; a += 1) {
    for (let b = 0; b <= trials; b += 1) {
      const joint = (was[a] as number) * (now[b] as number);
      if (a > b) worse += joint;
      else if (b > a) better += joint;
    }
  }
  return { worse, better };
}

/**
 * The smallest common drop in the pass chance of `moved` cases, each passing with chance `rate`
 * before, that the one-sided sign test over their first fresh pairs detects at `level` with
 * STATED_POWER; null when none does.
 */
export function aggregateDetectableDrop(moved: number, rate: number, level: number, trials = 1): number | null {
  if (moved === 0 || rate <= 0) return null;
  // The fewest worse pairs among d discordant ones that the sign test rejects on.
  const critical: number[] = [];
  for (let d = 0; d <= moved; d += 1) {
    let w = 0;
    while (w <= d && binomialUpperTail(d, w) > level * (1 + 1e-9)) w += 1;
    critical.push(w);
  }
  const powerAt = (drop: number): number => {
    const { worse, better } = discordance(rate, rate - drop, trials);
    const discordant = worse + better;
    if (discordant <= 0) return 0;
    const counts = binomialPmf(moved, discordant);
    let power = 0;
    for (let d = 1; d <= moved; d += 1) {
      const pd = counts[d] as number;
      if (pd < 1e-15 || (critical[d] as number) > d) continue;
      const split = binomialPmf(d, worse / discordant);
      let tail = 0;
      for (let w = critical[d] as number; w <= d; w += 1) tail += split[w] as number;
      power += pd * tail;
    }
    return power;
  };
  if (powerAt(rate) < STATED_POWER) return null;
  let low = 0;
  let high = Math.round(rate * 100);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (powerAt(middle / 100) >= STATED_POWER) high = middle;
    else low = middle;
  }
  return high / 100;
}
