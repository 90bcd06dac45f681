// One moved case's confirmation, as a rule over its fresh trials. Both sides run the same number
// of fresh trials, in looks at 1, 2, 4, 8, 16, 32 … trials a side, up to K. The case is decided by
// a one-sided exact test (Boschloo's, boschloo.ts) of the side expected higher ("hi": the
// baseline when testing a regression, the candidate when testing a fix) against the other ("lo"):
//
//   - an early look for efficacy at 8 trials a side spends a tenth of the case's level; the full-size
//     test at K spends the rest, so by the union bound the case is tested at its whole level once;
//   - curtailment: at any look, a verdict the full-size test can no longer escape is taken now;
//   - futility: from the second look, a case whose chance of ending significant, predicted from
//     what it showed so far, is below `futility`, stops as not confirmed. Stopping for futility
//     can only lower the chance of naming a case, so it never costs the error rate.
//
// The rule is a pure function of the counts at a look, so the planner and the exact power
// computation (power.ts) share it.
import { betaBinomialPmf } from './binomial.ts';
import { boschlooDropPValue } from './boschloo.ts';
import { meets } from './significance.ts';

export type Direction = 'regression' | 'fix';

/** The early look for efficacy, and the share of the case's level it spends. */
export const INTERIM = { at: 8, share: 0.1 } as const;

/** No futility stop before this many fresh trials a side: one pair says almost nothing. */
export const FIRST_FUTILITY_LOOK = 2;

export interface CaseDesign {
  readonly caseId: string;
  readonly direction: Direction;
  /** Its weight in the family: a unanimous screen weighs more (weighted Bonferroni, weighted Holm). */
  readonly weight: number;
  /** Its level: the family's level × weight / the family's total weight. */
  readonly bar: number;
  /** K, fresh trials per side of the full-size test. */
  readonly trialsPerSide: number;
  /** The early look, or null when K is not beyond it. */
  readonly interim: { readonly at: number; readonly share: number } | null;
  /** What the baseline's records showed: the baseline's prior belief for the futility rule only. */
  readonly baselinePrior: { readonly passes: number; readonly graded: number };
  /** Stop when the predicted chance of ending significant is below this (0: never). */
  readonly futility: number;
}

/** Fresh trials a side at each look: doubling from 1, then K. */
export function looksOf(k: number): number[] {
  const looks: number[] = [];
  for (let n = 1; n < k; n *= 2) looks.push(n);
  looks.push(k);
  return looks;
}

/** The look after n trials a side (K at most). */
export function nextLook(k: number, n: number): number {
  return looksOf(k).find((look) => look > n) ?? k;
}


/** The level of the full-size test: what the early look did not spend. */
export const finalBar = (design: CaseDesign): number => design.bar * (1 - (design.interim?.share ?? 0));

export type LookVerdict =
  | { readonly kind: 'significant'; readonly pValue: number; readonly pBound: 'exact' | 'at_most' }
  | { readonly kind: 'not_significant'; readonly pValue: number }
  | { readonly kind: 'hopeless' }
  | { readonly kind: 'futile'; readonly predicted: number }
  | { readonly kind: 'continue' };

/** The case's combined p-value from its looks: min(p_early / share, p_full / (1 - share)) (weighted Bonferroni over looks). */
function combined(design: CaseDesign, interimP: number | null, fullP: number): number {
  const share = design.interim?.share ?? 0;
  const early = interimP === null || share === 0 ? Infinity : interimP / share;
  return Math.min(1, early, fullP / (1 - share));
}

/**
 * The verdict at a look with n fresh trials a side, hi and lo passes. `interimP` is the early
 * look's p-value once it was taken (it can only have failed its share, or the case would have
 * stopped there).
 */
export function judgeLook(design: CaseDesign, hi: number, lo: number, n: number, interimP: number | null): LookVerdict {
  const k = design.trialsPerSide;
  const full = finalBar(design);
  if (n >= k) {
    const p = combined(design, interimP, boschlooDropPValue(hi, lo, k));
    return meets(p, design.bar) ? { kind: 'significant', pValue: p, pBound: 'exact' } : { kind: 'not_significant', pValue: p };
  }
  const { interim } = design;
  if (interim && n === interim.at) {
    const p = boschlooDropPValue(hi, lo, n);
    if (meets(p, design.bar * interim.share)) return { kind: 'significant', pValue: combined(design, p, 1), pBound: 'exact' };
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
  if (all) return { kind: 'significant', pValue: combined(design, interimP, worst), pBound: 'at_most' };
  const interimAhead = interim !== null && n < interim.at && canReachAt(hi, lo, n, interim.at, design.bar * interim.share);
  if (!any && !interimAhead) return { kind: 'hopeless' };
  if (design.futility > 0 && n >= FIRST_FUTILITY_LOOK) {
    const predicted = predictedSignificance(design, hi, lo, n);
    if (predicted < design.futility) return { kind: 'futile', predicted };
  }
  return { kind: 'continue' };
}

function canReachAt(hi: number, lo: number, n: number, at: number, bar: number): boolean {
  for (let x = 0; x <= at - n; x += 1) for (let y = 0; y <= at - n; y += 1) if (meets(boschlooDropPValue(hi + x, lo + y, at), bar)) return true;
  return false;
}

/**
 * The chance the full-size test ends significant, predicted from the counts so far: each side's
 * pass chance is believed Beta(1/2 + passes, 1/2 + fails) (Jeffreys), the baseline's counting its
 * records too. Only the futility rule uses it.
 */
export function predictedSignificance(design: CaseDesign, hi: number, lo: number, n: number): number {
  const k = design.trialsPerSide;
  const left = k - n;
  const prior = design.baselinePrior;
  const baselineIsHi = design.direction === 'regression';
  const belief = (passes: number, withRecords: boolean): [number, number] => [
    0.5 + passes + (withRecords ? prior.passes : 0),
    0.5 + (n - passes) + (withRecords ? prior.graded - prior.passes : 0),
  ];
  const hiPmf = betaBinomialPmf(left, ...belief(hi, baselineIsHi));
  const loPmf = betaBinomialPmf(left, ...belief(lo, !baselineIsHi));
  const full = finalBar(design);
  let chance = 0;
  for (let x = 0; x <= left; x += 1) {
    const px = hiPmf[x] as number;
    if (px < 1e-12) continue;
    for (let y = 0; y <= left; y += 1) if (meets(boschlooDropPValue(hi + x, lo + y, k), full)) chance += px * (loPmf[y] as number);
  }
  return chance;
}
