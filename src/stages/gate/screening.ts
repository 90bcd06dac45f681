import type { CaseSummary } from './flips.ts';
import { signTestOneSided } from './significance.ts';

export interface TrialCounts {
  readonly passes: number;
  readonly graded: number;
}

export type Movement = 'drop' | 'rise' | 'same';

export interface ScreenedCase {
  readonly caseId: string;
  readonly baseline: TrialCounts;
  readonly candidate: TrialCounts;
  readonly movement: Movement;
  /** Which family the two-stage gate tests it in (selection), if any. */
  readonly selected: 'regression' | 'fix' | null;
}

/**
 * The first stage of the gate: both versions ran every case the planned number of times. A case
 * moved when its share of passing trials differs between the two; the movement picks the cases
 * (and the direction) the second stage tests on fresh trials.
 */
export interface Screening {
  /** Cases graded on both sides, in id order. */
  readonly cases: readonly ScreenedCase[];
  /** Cases whose share of passing trials fell, and rose. */
  readonly drops: readonly string[];
  readonly rises: readonly string[];
  /** Cases selected for confirmation: the candidate fell below a baseline that mostly passed, or rose above one that mostly failed. */
  readonly regressionCandidates: readonly string[];
  readonly fixCandidates: readonly string[];
  /** Cases without a graded trial on one side (infrastructure errors only): never a flip. */
  readonly ungraded: readonly string[];
  /**
   * Of those, the cases the candidate left ungraded where the baseline mostly passed. They are
   * selected as possible regressions too, so an agent that reports its own failures as
   * infrastructure errors is confirmed on fresh trials beside the baseline instead of being waved through.
   */
  readonly ungradedByCandidate: readonly ScreenedCase[];
  /** Cases present in only one of the two runs. */
  readonly unmatched: readonly string[];
  /** The paired sign test over moved cases: the chance of this many drops among them if nothing changed. */
  readonly aggregate: { readonly worse: number; readonly better: number; readonly pValue: number };
}

/** Under `secondLook: "auto"`, the share of cases whose records all passed from which the agent counts as mature. */
export const MATURE_SHARE = 2 / 3;

/**
 * Cases the candidate's screen looks at once more: every record of the baseline passed every
 * trial, and so did the candidate. On an agent whose cases nearly always pass, a case that now
 * fails half the time passes one screen trial half the time and would never reach confirmation;
 * a second trial selects it three times in four. The extra trials serve selection only (each
 * test uses fresh trials), so they cannot bias a test; they cost one candidate trial per such case,
 * which on other suites buys less than it costs, hence "auto": only on a mature agent, read from
 * the baseline's records alone (never from the candidate).
 */
/** A mature agent: at least MATURE_SHARE of the cases' records all passed (two trials or more). */
export function isMature(baseline: readonly TrialCounts[]): boolean {
  return baseline.length > 0 && baseline.filter((c) => c.graded >= 2 && c.passes === c.graded).length >= MATURE_SHARE * baseline.length;
}

export function secondLookCases(baseline: ReadonlyMap<string, CaseSummary>, candidate: ReadonlyMap<string, CaseSummary>, mode: 'auto' | 'always' | 'never'): string[] {
  const unanimous = (c: CaseSummary | undefined): boolean => c !== undefined && c.graded >= 2 && c.passes === c.graded;
  if (mode === 'never' || baseline.size === 0) return [];
  if (mode === 'auto' && !isMature([...baseline.values()])) return [];
  return [...candidate.values()]
    .filter((after) => unanimous(baseline.get(after.caseId)) && after.graded > 0 && after.passes === after.graded)
    .map((c) => c.caseId)
    .sort();
}

export function movementOf(baseline: TrialCounts, candidate: TrialCounts): Movement {
  // Compare passes/graded without division: candidate share below baseline share is a drop.
  const before = baseline.passes * candidate.graded;
  const after = candidate.passes * baseline.graded;
  return after < before ? 'drop' : after > before ? 'rise' : 'same';
}

/**
 * Selection for confirmation. A regression is worth confirming where the baseline mostly passed
 * (more than half its trials, over all its records) and the candidate did worse; a fix where the
 * baseline mostly failed and the candidate did better. With one trial a case and three baseline
 * records: the candidate failed and at least two records passed. More records raise the chance a
 * real break is selected (a case passing 90% of the time is selected 97% of the time with three
 * records, 90% with one) and keep most flaky cases out. The per-case tests use fresh trials only,
 * so selection never biases them.
 */
export function selectionOf(baseline: TrialCounts, candidate: TrialCounts): ScreenedCase['selected'] {
  const movement = movementOf(baseline, candidate);
  if (movement === 'drop' && baseline.passes * 2 > baseline.graded) return 'regression';
  if (movement === 'rise' && baseline.passes * 2 < baseline.graded) return 'fix';
  return null;
}

/**
 * Screens two runs of the same cases (the baseline's side may pool several records). Under an
 * unchanged agent, run under the same conditions, each moved case is as likely to drop as to
 * rise, so the sign test over the moved cases is exact; a stored baseline taken under other
 * conditions breaks that, which is why the two-stage gate takes its paired test from fresh trials.
 */
export function screen(baseline: ReadonlyMap<string, CaseSummary>, candidate: ReadonlyMap<string, CaseSummary>): Screening {
  const cases: ScreenedCase[] = [];
  const ungraded: string[] = [];
  const ungradedByCandidate: ScreenedCase[] = [];
  const unmatched: string[] = [];
  const counts = (s: CaseSummary): TrialCounts => ({ passes: s.passes, graded: s.graded });
  for (const caseId of [...new Set([...baseline.keys(), ...candidate.keys()])].sort()) {
    const before = baseline.get(caseId);
    const after = candidate.get(caseId);
    if (!before || !after) unmatched.push(caseId);
    else if (before.graded === 0 || after.graded === 0) {
      ungraded.push(caseId);
      if (after.graded === 0 && before.passes * 2 > before.graded) {
        ungradedByCandidate.push({ caseId, baseline: counts(before), candidate: counts(after), movement: 'drop', selected: 'regression' });
      }
    } else {
      cases.push({ caseId, baseline: counts(before), candidate: counts(after), movement: movementOf(before, after), selected: selectionOf(before, after) });
    }
  }
  const drops = cases.filter((c) => c.movement === 'drop').map((c) => c.caseId);
  const rises = cases.filter((c) => c.movement === 'rise').map((c) => c.caseId);
  return {
    cases,
    drops,
    rises,
    regressionCandidates: [...cases, ...ungradedByCandidate].filter((c) => c.selected === 'regression').map((c) => c.caseId).sort(),
    fixCandidates: cases.filter((c) => c.selected === 'fix').map((c) => c.caseId),
    ungraded,
    ungradedByCandidate,
    unmatched,
    aggregate: { worse: drops.length, better: rises.length, pValue: signTestOneSided(drops.length, rises.length) },
  };
}

/** pass^1 of a run: the mean over graded cases of the share of their trials that passed. */
export function meanPassRate(cases: ReadonlyMap<string, TrialCounts>): number {
  const graded = [...cases.values()].filter((c) => c.graded > 0);
  return graded.length === 0 ? 0 : graded.reduce((sum, c) => sum + c.passes / c.graded, 0) / graded.length;
}
