// The second stage of the gate, as a pure planner. Every case the screening selected is re-run on
// fresh trials, the same number on both sides and run together, and decided on those fresh
// trials alone (case-design.ts). Per family (regressions, fixes) each case gets a share of the
// family's level by the weight of its screening evidence (weighted Bonferroni, known before any
// fresh trial, so the early stops can use it) and K chosen for power at that share; the final
// verdicts are weighted Holm's, which can only name more.
//
// The paired test over all moved cases takes each case's first fresh pair: fresh, run on both
// sides together, and independent of the selection, so a provider that drifted since the
// baseline's records were taken cannot fake a regression.
import type { CaseTest } from '../../domain/decision.ts';
import type { CaseSummary } from '../../domain/case-summary.ts';
import { boschlooDropPValue } from './boschloo.ts';
import { interimsOf, judgeLook, nextLook, spent, type CaseDesign, type Direction, type LookVerdict } from './case-design.ts';
import { designTrials } from './power.ts';
import { isMature, type Screening, type TrialCounts } from './screening.ts';
import { signTestOneSided, splitAlpha, weightedHolmAdjust } from './significance.ts';

export type Side = 'baseline' | 'candidate';
export type { Direction } from './case-design.ts';

export interface ConfirmationPolicy {
  readonly alpha: number;
  /** Most fresh trials per side for one case. */
  readonly maxConfirmTrials: number;
  /** The drop (or rise) K is chosen to confirm with 90% power. */
  readonly detectableDrop: number;
  /** Stop a case whose predicted chance of ending significant is below this. */
  readonly futility: number;
  /** The second look's mode (screening.ts): where it applies (a mature agent), unanimous possible regressions are sized for MATURE_BREAK too and stop at a lower futility bar. */
  readonly secondLook?: 'auto' | 'always' | 'never';
}

/**
 * On a mature agent, a possible regression whose records all passed stops for futility only below
 * this share of gate.futility. There most selected cases are noise that passes again and again, and
 * a soft break (.97 → .5) passes its first fresh trials often enough that the usual bar stopped it
 * in 47% of gates, more often than it was confirmed (31%; bench/gate-trust.ts --sections mature). A
 * futility stop can only name fewer, so the bar trades runs for power and never the error rate.
 */
export const MATURE_FUTILITY_SHARE = 0.5;

/**
 * On a mature agent, a possible regression whose records all passed is also sized for DESIGN_POWER
 * against this soft break: a case that nearly always passed now fails half the time. Sized only
 * against gate.detectableDrop from any baseline chance, its K was too small to confirm that break
 * at the small level the many noise cases of such a suite leave each (K 23: 83% at full size);
 * the larger K (up to gate.maxConfirmTrials) costs noise little, since futility stops it early.
 */
export const MATURE_BREAK = { from: 0.97, to: 0.5 } as const;

/** How a case is sized and stopped: a unanimous possible regression on a mature agent gets the soft break's K and the lower futility bar. */
function matureClass(direction: Direction, weight: number, mature: boolean): boolean {
  return mature && direction === 'regression' && weight > 1;
}

/** A unanimous screen (every baseline trial passed and the candidate fell; or every one failed and it rose) weighs this much more. */
export const UNANIMOUS_WEIGHT = 4;

export interface FamilyDesign {
  readonly direction: Direction;
  /** Family-wise level: 3α/4 for regressions, α for fixes. */
  readonly level: number;
  readonly cases: readonly CaseDesign[];
  /** Designs whose K reached 90% power against the stated drop within gate.maxConfirmTrials. */
  readonly underpoweredByCap: readonly string[];
}

export interface ConfirmationDesign {
  readonly families: readonly FamilyDesign[];
  readonly policy: ConfirmationPolicy;
}

const finalShareAt = (k: number): number => 1 - spent(interimsOf(k));

function unanimous(direction: Direction, baseline: TrialCounts): boolean {
  return direction === 'regression' ? baseline.passes === baseline.graded : baseline.passes === 0;
}

/** Fixes the families, each case's weight, level and K before any fresh trial runs (so the design cannot peek). */
export function designConfirmation(screening: Screening, policy: ConfirmationPolicy): ConfirmationDesign {
  const screened = new Map([...screening.cases, ...screening.ungradedByCandidate].map((c) => [c.caseId, c]));
  const levels = splitAlpha(policy.alpha);
  const mature = policy.secondLook !== undefined && policy.secondLook !== 'never' && (policy.secondLook === 'always' || isMature([...screened.values()].map((c) => c.baseline)));
  const family = (direction: Direction, ids: readonly string[]): FamilyDesign => {
    const level = direction === 'regression' ? levels.regression : levels.fix;
    const weighted = ids.map((caseId) => {
      const baseline = screened.get(caseId)?.baseline ?? { passes: 0, graded: 0 };
      return { caseId, baseline, weight: unanimous(direction, baseline) ? UNANIMOUS_WEIGHT : 1 };
    });
    const total = weighted.reduce((sum, c) => sum + c.weight, 0);
    const underpowered: string[] = [];
    const cases = weighted.map(({ caseId, baseline, weight }) => {
      const { design, reached } = designCase({ caseId, direction, weight, bar: (level * weight) / total, baseline, mature: matureClass(direction, weight, mature) }, policy);
      if (!reached) underpowered.push(caseId);
      return design;
    });
    return { direction, level, cases, underpoweredByCap: underpowered };
  };
  return { families: [family('regression', screening.regressionCandidates), family('fix', screening.fixCandidates)], policy };
}

/** One case's design at its level: K for power, the early looks K is beyond. */
export function designCase(
  input: { readonly caseId: string; readonly direction: Direction; readonly weight: number; readonly bar: number; readonly baseline: TrialCounts; readonly mature?: boolean },
  policy: ConfirmationPolicy,
): { readonly design: CaseDesign; readonly reached: boolean } {
  const { trialsPerSide, reached } = designTrials(input.bar, policy.detectableDrop, policy.maxConfirmTrials, finalShareAt, input.mature ? MATURE_BREAK : undefined);
  return {
    design: {
      caseId: input.caseId,
      direction: input.direction,
      weight: input.weight,
      bar: input.bar,
      trialsPerSide,
      interims: interimsOf(trialsPerSide),
      futility: input.mature ? policy.futility * MATURE_FUTILITY_SHARE : policy.futility,
    },
    reached,
  };
}

export interface SideTally extends TrialCounts {
  /** Trials run, graded or not (infrastructure errors are attempts without a verdict). */
  readonly attempts: number;
  /** The verdict of its first graded fresh trial (the paired test's evidence). */
  readonly first: boolean | null;
}

export interface CaseTally {
  readonly baseline: SideTally;
  readonly candidate: SideTally;
  /** Each side's passes when both had exactly n graded trials, for every n (the early looks read theirs). */
  readonly atLooks: ReadonlyMap<number, { readonly baseline: number; readonly candidate: number }>;
}

export type Tallies = ReadonlyMap<string, CaseTally>;

const EMPTY_SIDE: SideTally = { passes: 0, graded: 0, attempts: 0, first: null };
const EMPTY_TALLY: CaseTally = { baseline: EMPTY_SIDE, candidate: EMPTY_SIDE, atLooks: new Map() };

/** Adds one side's fresh trials to the tallies (a new map: the evidence only grows). */
export function addConfirmation(tallies: Tallies, side: Side, fresh: ReadonlyMap<string, CaseSummary>): Tallies {
  const next = new Map(tallies);
  for (const summary of fresh.values()) {
    const tally = next.get(summary.caseId) ?? EMPTY_TALLY;
    const before = tally[side];
    let first = before.first;
    if (first === null && summary.graded > 0) {
      // The planner asks a side for one trial at a time until it has a graded one, so this one is it.
      if (summary.trials !== 1) throw new Error(`confirmation: ${summary.caseId} (${side}) got ${summary.trials} trials before its first graded one; the planner asks for one`);
      first = summary.passes === 1;
    }
    const after: SideTally = { attempts: before.attempts + summary.trials, graded: before.graded + summary.graded, passes: before.passes + summary.passes, first };
    const updated: CaseTally = { ...tally, [side]: after };
    const { baseline, candidate } = updated;
    let atLooks = tally.atLooks;
    if (baseline.graded === candidate.graded && !atLooks.has(baseline.graded)) atLooks = new Map([...atLooks, [baseline.graded, { baseline: baseline.passes, candidate: candidate.passes }]]);
    next.set(summary.caseId, { ...updated, atLooks });
  }
  return next;
}

export type CaseState =
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'live'; readonly requests: Readonly<Record<Side, number>> }
  | { readonly kind: 'decided'; readonly verdict: Exclude<LookVerdict, { kind: 'continue' }> };

/**
 * A side that cannot be judged: K infrastructure errors (it can never reach K graded trials), or
 * at least INFRA_STOP of them outnumbering its graded trials, while the other side ran beside it.
 */
export const INFRA_STOP = 3;
const blocked = (side: SideTally, k: number): boolean => {
  const errors = side.attempts - side.graded;
  return errors >= k || (errors >= INFRA_STOP && errors > side.graded);
};

/** The side expected to pass more often ("hi") is the baseline for a regression, the candidate for a fix. */
const hiLo = (direction: Direction, b: number, c: number): [number, number] => (direction === 'regression' ? [b, c] : [c, b]);

/** Where one case stands, and what it needs next. */
export function caseState(design: CaseDesign, tally: CaseTally): CaseState {
  const k = design.trialsPerSide;
  const { baseline, candidate } = tally;
  if (blocked(baseline, k) || blocked(candidate, k)) return { kind: 'incomplete' };
  const top = Math.max(baseline.graded, candidate.graded);
  // A side behind (infrastructure errors) catches up before anything is judged.
  if (baseline.graded !== candidate.graded) return { kind: 'live', requests: { baseline: top - baseline.graded, candidate: top - candidate.graded } };
  const n = top;
  if (n === 0) return { kind: 'live', requests: { baseline: 1, candidate: 1 } };
  const [hi, lo] = hiLo(design.direction, baseline.passes, candidate.passes);
  const interimPs = design.interims.map((i) => {
    const at = tally.atLooks.get(i.at);
    return at && n > i.at ? boschlooDropPValue(...hiLo(design.direction, at.baseline, at.candidate), i.at) : null;
  });
  const verdict = judgeLook(design, hi, lo, n, interimPs);
  if (verdict.kind !== 'continue') return { kind: 'decided', verdict };
  const more = nextLook(k, n, design.interims) - n;
  return { kind: 'live', requests: { baseline: more, candidate: more } };
}

export interface ConfirmationRequest {
  readonly side: Side;
  /** Fresh trials for each of the cases. */
  readonly trials: number;
  readonly caseIds: readonly string[];
}

export type GateStep = { readonly kind: 'run'; readonly requests: readonly ConfirmationRequest[] } | { readonly kind: 'decide' };

/** The next round: every live case gets the trials its next look needs on each side. Decide when no case is live. */
export function nextStep(design: ConfirmationDesign, tallies: Tallies): GateStep {
  const groups = new Map<string, { side: Side; trials: number; caseIds: string[] }>();
  for (const family of design.families) {
    for (const caseDesign of family.cases) {
      const state = caseState(caseDesign, tallies.get(caseDesign.caseId) ?? EMPTY_TALLY);
      if (state.kind !== 'live') continue;
      for (const side of ['baseline', 'candidate'] as const) {
        const trials = state.requests[side];
        if (trials <= 0) continue;
        const key = `${side}:${trials}`;
        const group = groups.get(key) ?? { side, trials, caseIds: [] };
        group.caseIds.push(caseDesign.caseId);
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

const OUTCOME: Record<Exclude<LookVerdict, { kind: 'continue' }>['kind'], CaseTest['outcome']> = {
  significant: 'confirmed',
  not_significant: 'not_confirmed',
  hopeless: 'stopped_early',
  futile: 'futile',
};

/** Every family's per-case verdicts once the planner decides: weighted Holm over the family. */
export function confirmationTests(design: ConfirmationDesign, screening: Screening, tallies: Tallies): CaseTest[] {
  const screened = new Map([...screening.cases, ...screening.ungradedByCandidate].map((c) => [c.caseId, c]));
  return design.families.flatMap((family) => {
    const rows = family.cases.map((caseDesign) => {
      const tally = tallies.get(caseDesign.caseId) ?? EMPTY_TALLY;
      return { caseDesign, tally, state: caseState(caseDesign, tally) };
    });
    // A case that stopped without a full-size p-value enters with p = 1 (conservative: Holm is monotone).
    const pValues = rows.map(({ state }) =>
      state.kind === 'decided' && (state.verdict.kind === 'significant' || state.verdict.kind === 'not_significant') ? state.verdict.pValue : 1,
    );
    const adjusted = weightedHolmAdjust(pValues, rows.map((r) => r.caseDesign.weight));
    return rows.map(({ caseDesign, tally, state }, i): CaseTest => {
      const screen = screened.get(caseDesign.caseId);
      const counts = (side: SideTally): TrialCounts => ({ passes: side.passes, graded: side.graded });
      const base = {
        caseId: caseDesign.caseId,
        direction: family.direction,
        screening: { baseline: screen?.baseline ?? EMPTY_SIDE, candidate: screen?.candidate ?? EMPTY_SIDE },
        confirmation: { baseline: counts(tally.baseline), candidate: counts(tally.candidate) },
        weight: caseDesign.weight,
        bar: caseDesign.bar,
        trialsPerSide: caseDesign.trialsPerSide,
      };
      if (state.kind !== 'decided') return { ...base, pValue: null, pBound: null, adjustedPValue: null, outcome: 'incomplete' };
      const { verdict } = state;
      if (verdict.kind === 'hopeless' || verdict.kind === 'futile') return { ...base, pValue: null, pBound: null, adjustedPValue: null, outcome: OUTCOME[verdict.kind] };
      const adjustedPValue = adjusted[i] as number;
      const confirmed = adjustedPValue <= family.level * (1 + 1e-9);
      return { ...base, pValue: verdict.pValue, pBound: verdict.kind === 'significant' ? verdict.pBound : 'exact', adjustedPValue, outcome: confirmed ? 'confirmed' : 'not_confirmed' };
    });
  });
}

/**
 * The paired test's evidence: each tested case's first graded fresh pair. A pair where the
 * baseline passed and the candidate failed counts as worse, the reverse as better.
 */
export function freshPairs(design: ConfirmationDesign, tallies: Tallies): { readonly worse: number; readonly better: number; readonly pairs: number; readonly pValue: number } {
  let worse = 0;
  let better = 0;
  let pairs = 0;
  for (const family of design.families) {
    for (const { caseId } of family.cases) {
      const tally = tallies.get(caseId);
      if (!tally || tally.baseline.first === null || tally.candidate.first === null) continue;
      pairs += 1;
      if (tally.baseline.first && !tally.candidate.first) worse += 1;
      else if (!tally.baseline.first && tally.candidate.first) better += 1;
    }
  }
  return { worse, better, pairs, pValue: signTestOneSided(worse, better) };
}

/**
 * Infrastructure errors of each side over every fresh trial, and the cases the candidate left
 * undecidable while the baseline, run beside it, was graded. Both sides' fresh trials ran
 * together, so an outage strikes both; errors on the candidate's side alone are its own.
 */
export function freshInfrastructure(design: ConfirmationDesign, tallies: Tallies): {
  readonly baseline: { readonly errors: number; readonly attempts: number };
  readonly candidate: { readonly errors: number; readonly attempts: number };
  readonly candidateBlocked: readonly string[];
} {
  const total = { baseline: { errors: 0, attempts: 0 }, candidate: { errors: 0, attempts: 0 } };
  const candidateBlocked: string[] = [];
  for (const family of design.families) {
    for (const { caseId, trialsPerSide } of family.cases) {
      const tally = tallies.get(caseId);
      if (!tally) continue;
      for (const side of ['baseline', 'candidate'] as const) {
        total[side].errors += tally[side].attempts - tally[side].graded;
        total[side].attempts += tally[side].attempts;
      }
      if (blocked(tally.candidate, trialsPerSide) && !blocked(tally.baseline, trialsPerSide)) candidateBlocked.push(caseId);
    }
  }
  return { ...total, candidateBlocked: candidateBlocked.sort() };
}
