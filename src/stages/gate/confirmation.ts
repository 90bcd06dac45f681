// The second stage of the gate, as a pure planner. Every case whose screening outcome moved is
// re-run on fresh trials, the same number on both sides, and decided on those trials alone by a
// one-sided exact test (Boschloo's: Fisher's ordering, unconditional, see boschloo.ts) of fixed
// size K per side. A case stops as soon as the verdict of
// that full-size test can no longer change (deterministic curtailment), which changes no
// decision, only the cost. Per family (regressions, fixes), the per-case bar is level / m
// (Bonferroni, known in advance, so curtailment can use it), and the final verdicts are Holm's.
import type { CaseTest } from '../../domain/decision.ts';
import type { CaseSummary } from '../../domain/case-summary.ts';
import type { Screening, TrialCounts } from './screening.ts';
import { boschlooDropPValue, boschlooFloor } from './boschloo.ts';
import { holmAdjust, splitAlpha, trialsToReach } from './significance.ts';

export type Side = 'baseline' | 'candidate';
export type Direction = CaseTest['direction'];

export interface ConfirmationPolicy {
  readonly alpha: number;
  /** Most fresh trials per side for one case. */
  readonly maxConfirmTrials: number;
}

export interface FamilyDesign {
  readonly direction: Direction;
  readonly cases: readonly string[];
  /** Family-wise level: two thirds of alpha (the other third is the paired test's). */
  readonly level: number;
  /** The per-case bar curtailment uses: level / m. */
  readonly bar: number;
  /** K, the fixed size of each case's test; null when no case can reach the bar within the cap. */
  readonly trialsPerSide: number | null;
}

export interface ConfirmationDesign {
  readonly families: readonly FamilyDesign[];
  readonly maxTrials: number;
}

/** p at most bar, tolerant of the last bit of floating point (1/C(6,3) must meet 0.05). */
export const meets = (p: number, bar: number): boolean => p <= bar * (1 + 1e-9);

/** Fixes the families and K for each before any fresh trial runs (so the design cannot peek). */
export function designConfirmation(screening: Screening, policy: ConfirmationPolicy): ConfirmationDesign {
  const level = splitAlpha(policy.alpha).family;
  const family = (direction: Direction, cases: readonly string[]): FamilyDesign => {
    const bar = cases.length === 0 ? level : level / cases.length;
    return { direction, cases, level, bar, trialsPerSide: cases.length === 0 ? null : trialsToReach(bar, policy.maxConfirmTrials, boschlooFloor) };
  };
  return { families: [family('regression', screening.drops), family('fix', screening.rises)], maxTrials: policy.maxConfirmTrials };
}

export interface SideTally extends TrialCounts {
  /** Trials run, graded or not (infrastructure errors are attempts without a verdict). */
  readonly attempts: number;
}

export interface CaseTally {
  readonly baseline: SideTally;
  readonly candidate: SideTally;
}

export type Tallies = ReadonlyMap<string, CaseTally>;

const EMPTY_SIDE: SideTally = { passes: 0, graded: 0, attempts: 0 };
const EMPTY_TALLY: CaseTally = { baseline: EMPTY_SIDE, candidate: EMPTY_SIDE };

/** Adds one side's fresh trials to the tallies (a new map: the evidence only grows). */
export function addConfirmation(tallies: Tallies, side: Side, fresh: ReadonlyMap<string, CaseSummary>): Tallies {
  const next = new Map(tallies);
  for (const summary of fresh.values()) {
    const tally = next.get(summary.caseId) ?? EMPTY_TALLY;
    const before = tally[side];
    next.set(summary.caseId, {
      ...tally,
      [side]: { attempts: before.attempts + summary.trials, graded: before.graded + summary.graded, passes: before.passes + summary.passes },
    });
  }
  return next;
}

type CaseState =
  | { readonly kind: 'live' }
  | { readonly kind: 'decided'; readonly significant: boolean; readonly pValue: number; readonly pBound: 'exact' | 'at_most' | 'at_least' }
  | { readonly kind: 'incomplete' };

function fullSizeP(direction: Direction, basePasses: number, candPasses: number, k: number): number {
  return direction === 'regression' ? boschlooDropPValue(basePasses, candPasses, k) : boschlooDropPValue(candPasses, basePasses, k);
}

/**
 * Where one case stands: decided (every reachable completion gives the same verdict), still
 * live, or incomplete (a side had K infrastructure errors and cannot reach K graded trials).
 */
export function caseState(direction: Direction, tally: CaseTally, k: number, bar: number): CaseState {
  const { baseline, candidate } = tally;
  if (baseline.attempts - baseline.graded >= k || candidate.attempts - candidate.graded >= k) return { kind: 'incomplete' };
  const baseLeft = Math.max(0, k - baseline.graded);
  const candLeft = Math.max(0, k - candidate.graded);
  let someSignificant = false;
  let allSignificant = true;
  let smallest = 1;
  let largest = 0;
  for (let b = baseline.passes; b <= baseline.passes + baseLeft; b += 1) {
    for (let c = candidate.passes; c <= candidate.passes + candLeft; c += 1) {
      const p = fullSizeP(direction, b, c, k);
      smallest = Math.min(smallest, p);
      largest = Math.max(largest, p);
      if (meets(p, bar)) someSignificant = true;
      else allSignificant = false;
    }
  }
  if (baseLeft === 0 && candLeft === 0) return { kind: 'decided', significant: someSignificant, pValue: smallest, pBound: 'exact' };
  if (!someSignificant) return { kind: 'decided', significant: false, pValue: smallest, pBound: 'at_least' };
  if (allSignificant) return { kind: 'decided', significant: true, pValue: largest, pBound: 'at_most' };
  return { kind: 'live' };
}

export interface ConfirmationRequest {
  readonly side: Side;
  /** Fresh trials for each of the cases. */
  readonly trials: number;
  readonly caseIds: readonly string[];
}

export type GateStep = { readonly kind: 'run'; readonly requests: readonly ConfirmationRequest[] } | { readonly kind: 'decide' };

/**
 * The next round: every live case gets fresh trials on both sides, doubling the trials it has
 * (1, 1, 2, 4, … up to K), so a flaky case is dropped after a trial or two and a real change
 * reaches K in a few rounds. Decide when no case is live.
 */
export function nextStep(design: ConfirmationDesign, tallies: Tallies): GateStep {
  const groups = new Map<string, { side: Side; trials: number; caseIds: string[] }>();
  for (const family of design.families) {
    const k = family.trialsPerSide;
    if (k === null) continue;
    for (const caseId of family.cases) {
      const tally = tallies.get(caseId) ?? EMPTY_TALLY;
      if (caseState(family.direction, tally, k, family.bar).kind !== 'live') continue;
      const batch = Math.max(1, Math.min(tally.baseline.graded, tally.candidate.graded));
      for (const side of ['baseline', 'candidate'] as const) {
        const trials = Math.min(batch, k - tally[side].graded);
        if (trials <= 0) continue;
        const key = `${side}:${trials}`;
        const group = groups.get(key) ?? { side, trials, caseIds: [] };
        group.caseIds.push(caseId);
        groups.set(key, group);
      }
    }
  }
  if (groups.size === 0) return { kind: 'decide' };
  const requests = [...groups.values()]
    .map((g) => ({ ...g, caseIds: g.caseIds.sort() }))
    .sort((a, b) => (a.side === b.side ? a.trials - b.trials : a.side === 'baseline' ? -1 : 1));
  return { kind: 'run', requests };
}

/** Every family's per-case verdicts once the planner decides: Holm over the family's p-values. */
export function confirmationTests(design: ConfirmationDesign, screening: Screening, tallies: Tallies): CaseTest[] {
  const screened = new Map(screening.cases.map((c) => [c.caseId, c]));
  return design.families.flatMap((family) => {
    const k = family.trialsPerSide;
    const rows = family.cases.map((caseId) => {
      const tally = tallies.get(caseId) ?? EMPTY_TALLY;
      const state: CaseState | null = k === null ? null : caseState(family.direction, tally, k, family.bar);
      return { caseId, tally, state };
    });
    // Holm over the family: a case stopped as hopeless, incomplete or unreachable enters as p = 1
    // (Holm is monotone, so that is conservative); an early-significant case enters with its bound.
    const adjusted = holmAdjust(rows.map(({ state }) => (state?.kind === 'decided' && state.pBound !== 'at_least' ? state.pValue : 1)));
    return rows.map(({ caseId, tally, state }, i): CaseTest => {
      const screen = screened.get(caseId);
      const counts = (side: SideTally): TrialCounts => ({ passes: side.passes, graded: side.graded });
      const base = {
        caseId,
        direction: family.direction,
        screening: { baseline: screen?.baseline ?? EMPTY_SIDE, candidate: screen?.candidate ?? EMPTY_SIDE },
        confirmation: { baseline: counts(tally.baseline), candidate: counts(tally.candidate) },
      };
      if (state === null) return { ...base, pValue: null, pBound: null, adjustedPValue: null, outcome: 'unreachable' };
      if (state.kind !== 'decided') return { ...base, pValue: null, pBound: null, adjustedPValue: null, outcome: 'incomplete' };
      const adjustedPValue = adjusted[i] as number;
      if (state.pBound === 'at_least') return { ...base, pValue: state.pValue, pBound: 'at_least', adjustedPValue: null, outcome: 'stopped_early' };
      return { ...base, pValue: state.pValue, pBound: state.pBound, adjustedPValue, outcome: meets(adjustedPValue, family.level) ? 'confirmed' : 'not_confirmed' };
    });
  });
}
