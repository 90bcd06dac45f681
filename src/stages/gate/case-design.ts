// One moved case's confirmation, as a rule over its fresh trials. Both sides run the same number
// of fresh trials, in looks at 1, 2, 4, 6, 8, 12, 16, 32 … trials a side, up to K. The case is
// decided by a one-sided exact test (Boschloo's, boschloo.ts) of the side expected higher ("hi":
// the baseline when testing a regression, the candidate when testing a fix) against the other ("lo"):
//
//   - two early looks for efficacy, at 6 and 12 trials a side (each only when K is beyond it),
//     spend a fifth and a tenth of the case's level; the full-size test at K spends the rest, so
//     by the union bound over the looks the case is tested at its whole level once;
//   - curtailment: at any look, a verdict the full-size test can no longer escape is taken now;
//   - futility, only at the doubling looks (1, 2, 4, 8, 16 …): a case whose chance of ending
//     significant, predicted from its fresh trials so far, is below `futility` stops as not
//     confirmed; at the first look (one pair) only below FIRST_LOOK_FUTILITY. Stopping for futility
//     can only lower the chance of naming a case, so it never costs the error rate.
//
// The rule is a pure function of the counts at a look, so the planner and the exact power
// computation (power.ts) share it.
import { betaBinomialPmf } from './binomial.ts';
import { boschlooDropPValue } from './boschloo.ts';
import { meets } from './significance.ts';

export type Direction = 'regression' | 'fix';

/** An early look for efficacy: at `at` trials a side, it spends `share` of the case's level. */
export interface Interim {
  readonly at: number;
  readonly share: number;
}

/** The early looks for efficacy, in order: so a clear break stops at 6 or 12 trials a side. */
export const INTERIMS: readonly Interim[] = [
  { at: 6, share: 0.2 },
  { at: 12, share: 0.1 },
];

/** The early looks of a design with K trials a side: those before K. */
export const interimsOf = (k: number): Interim[] => INTERIMS.filter((i) => i.at < k);

/** At the first look (one pair), a case stops for futility only below this (or gate.futility, if lower): one pair says little. */
export const FIRST_LOOK_FUTILITY = 0.1;

export interface CaseDesign {
  readonly caseId: string;
  readonly direction: Direction;
  /** Its weight in the family: a unanimous screen weighs more (weighted Bonferroni, weighted Holm). */
  readonly weight: number;
  /** Its level: the family's level × weight / the family's total weight. */
  readonly bar: number;
  /** K, fresh trials per side of the full-size test. */
  readonly trialsPerSide: number;
  /** The early looks for efficacy before K (none when K is not beyond them). */
  readonly interims: readonly Interim[];
  /** Stop when the predicted chance of ending significant is below this (0: never). */
  readonly futility: number;
}

/** Fresh trials a side at each look: doubling from 1, the early looks, then K. */
export function looksOf(k: number, interims: readonly Interim[] = interimsOf(k)): number[] {
  const looks = new Set<number>();
  for (let n = 1; n < k; n *= 2) looks.add(n);
  for (const i of interims) if (i.at < k) looks.add(i.at);
  looks.add(k);
  return [...looks].sort((a, b) => a - b);
}
/** Futility may stop a case only at the doubling looks (more futility looks cost power). */
const isDoubling = (n: number): boolean => (n & (n - 1)) === 0;

/** The look after n trials a side (K at most). */
export function nextLook(k: number, n: number, interims?: readonly Interim[]): number {
  return looksOf(k, interims).find((look) => look > n) ?? k;
}


/** The share of the level the early looks spend, and the level of the full-size test: what they did not spend. */
export const spent = (interims: readonly Interim[]): number => interims.reduce((sum, i) => sum + i.share, 0);
export const finalBar = (design: CaseDesign): number => design.bar * (1 - spent(design.interims));

export type LookVerdict =
  | { readonly kind: 'significant'; readonly pValue: number; readonly pBound: 'exact' | 'at_most' }
  | { readonly kind: 'not_significant'; readonly pValue: number }
  | { readonly kind: 'hopeless' }
  | { readonly kind: 'futile'; readonly predicted: number }
  | { readonly kind: 'continue' };

/** The case's combined p-value from its looks: min over early looks of p / share, and p_full / (1 - spent) (weighted Bonferroni over looks). */
function combined(design: CaseDesign, interimPs: readonly (number | null)[], fullP: number): number {
  let best = fullP / (1 - spent(design.interims));
  design.interims.forEach((interim, j) => {
    const p = interimPs[j];
    if (p !== null && p !== undefined && interim.share > 0) best = Math.min(best, p / interim.share);
  });
  return Math.min(1, best);
}

/**
 * The verdict at a look with n fresh trials a side, hi and lo passes. `interimPs` holds each early
 * look's p-value once it was taken (null before: it can only have failed its share, or the case
 * would have stopped there).
 */
export function judgeLook(design: CaseDesign, hi: number, lo: number, n: number, interimPs: readonly (number | null)[]): LookVerdict {
  const k = design.trialsPerSide;
  const full = finalBar(design);
  if (n >= k) {
    const p = combined(design, interimPs, boschlooDropPValue(hi, lo, k));
    return meets(p, design.bar) ? { kind: 'significant', pValue: p, pBound: 'exact' } : { kind: 'not_significant', pValue: p };
  }
  const now = design.interims.findIndex((i) => i.at === n);
  if (now >= 0) {
    const p = boschlooDropPValue(hi, lo, n);
    if (meets(p, design.bar * (design.interims[now] as Interim).share)) {
      const ps = design.interims.map((_, j) => (j === now ? p : (interimPs[j] ?? null)));
      return { kind: 'significant', pValue: combined(design, ps, 1), pBound: 'exact' };
    }
  }
  // Every completion of the full-size test: does any reach the level, do all?
  const left = k - n;
  let any = false;
  let all = true;
  let worst = 0;
  for (let x = 0; x <= left; x += 1) {
    for (let y = 0; y <= left; y += 1) {
      const p = boschlooDropPValue(hi + x, lo + y, k);
      if (meets(p, full)) any = true;
      else all = false;
      worst = Math.max(worst, p);
    }
  }
  if (all) return { kind: 'significant', pValue: combined(design, interimPs, worst), pBound: 'at_most' };
  const interimAhead = design.interims.some((i) => n < i.at && canReachAt(hi, lo, n, i.at, design.bar * i.share));
  if (!any && !interimAhead) return { kind: 'hopeless' };
  if (design.futility > 0 && isDoubling(n)) {
    const predicted = predictedSignificance(design, hi, lo, n);
    const bar = n === 1 ? Math.min(design.futility, FIRST_LOOK_FUTILITY) : design.futility;
    if (predicted < bar) return { kind: 'futile', predicted };
  }
  return { kind: 'continue' };
}

function canReachAt(hi: number, lo: number, n: number, at: number, bar: number): boolean {
  for (let x = 0; x <= at - n; x += 1) for (let y = 0; y <= at - n; y += 1) if (meets(boschlooDropPValue(hi + x, lo + y, at), bar)) return true;
  return false;
}

/**
 * The chance the full-size test ends significant, predicted from the fresh counts so far: each
 * side's pass chance is believed Beta(1/2 + passes, 1/2 + fails) (Jeffreys). The baseline's records
 * are left out: they selected the case, so they overstate the gap, and under drift they are stale.
 * Only the futility rule uses it.
 */
export function predictedSignificance(design: CaseDesign, hi: number, lo: number, n: number): number {
  const k = design.trialsPerSide;
  const left = k - n;
  const belief = (passes: number): [number, number] => [0.5 + passes, 0.5 + (n - passes)];
  const hiPmf = betaBinomialPmf(left, ...belief(hi));
  const loPmf = betaBinomialPmf(left, ...belief(lo));
  const full = finalBar(design);
  let chance = 0;
  for (let x = 0; x <= left; x += 1) {
    const px = hiPmf[x] as number;
    if (px < 1e-12) continue;
    for (let y = 0; y <= left; y += 1) if (meets(boschlooDropPValue(hi + x, lo + y, k), full)) chance += px * (loPmf[y] as number);
  }
  return chance;
}
