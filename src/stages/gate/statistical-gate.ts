// The gate with a stated error rate. alpha is split by the union bound (splitAlpha): an eighth for
// the paired sign test over the moved cases' first fresh pairs, an eighth for the infrastructure
// balance test, three quarters for the family of per-case regression tests (weighted Holm). Every test an unchanged agent could fail rests on
// fresh trials that both versions ran together, so it is rejected at most alpha of the time,
// whatever its per-case pass chances and however the provider drifted since the baseline's
// records were taken. Fixes are a separate family at alpha: a case is credited as a fix it is not
// at most alpha of the time.
import type { CaseTest, FlipsDecision, GateCheck, PowerStatement, Procedure } from '../../domain/decision.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import { MATURE_BREAK, UNANIMOUS_WEIGHT, type ConfirmationDesign } from './confirmation.ts';
import { infrastructureBalanceCheck, type InfrastructureEvidence } from './infrastructure-balance.ts';
import type { CaseSummary } from './flips.ts';
import { gradedCheck, hitRateOf, intentChecks, listed, pct, plural, verdictOf } from './face-value-gate.ts';
import { meanPassRate, type Screening } from './screening.ts';
import { fisherDropPValue, holmAdjust, meets, splitAlpha } from './significance.ts';

export interface StatisticalPolicy {
  readonly alpha: number;
  /** Confirmed regressions still tolerated. */
  readonly maxSignificantRegressions: number;
  /** Confirmed fixes an RC with a change intent must show. */
  readonly minF2P: number;
  readonly minHitRate: number;
  readonly maxUngradedShare: number;
}

const level = (x: number): string => String(Number(x.toPrecision(3)));

/** A rate as a percentage with the digits it needs (3.75%, 5%). */
const percent = (x: number): string => `${Number((x * 100).toPrecision(3))}%`;

/** The two-stage guarantee, with the assumptions it rests on. */
function twoStageGuarantee(alpha: number): string {
  const { regression, fix } = splitAlpha(alpha);
  return (
    `an unchanged agent is rejected at most ${pct(alpha)} of the time, whatever its per-case pass chances and however the provider drifted since the baseline's records were taken; ` +
    `a case is named a regression it is not at most ${percent(regression)} of the time, and credited as a fix it is not at most ${percent(fix)} of the time. ` +
    'This assumes that the two versions\' fresh trials in each round ran under the same conditions (each case\'s baseline and candidate trials start as pairs, the order within each pair drawn at random, at every concurrency, so a change of the provider at any moment of the gate touches both sides alike in expectation), that each trial of a case is independent of the others given the version, ' +
    'and that infrastructure errors strike passing and failing trials alike'
  );
}

/** The single-stage guarantee: the runs themselves are the evidence, so they must be comparable. */
function singleStageGuarantee(alpha: number): string {
  return (
    `an unchanged agent is rejected at most ${pct(alpha)} of the time, whatever its per-case pass chances, ` +
    'provided both runs were taken under the same conditions: a drift of the provider between them reads as a change of the agent, which only re-running both sides together can rule out'
  );
}

/** On a mature agent, unanimous possible regressions stop for futility at a lower bar (confirmation.ts, `futilityOf`). */
function matureNote(design: ConfirmationDesign): string {
  const lowered = design.families.flatMap((f) => f.cases).find((c) => c.futility < design.policy.futility);
  return lowered
    ? ` (${lowered.futility} for a possible regression every record passed, whose K also has 90% power against a fall from ${MATURE_BREAK.from} to ${MATURE_BREAK.to}: a mature agent, where soft breaks pass their first fresh trials often)`
    : '';
}

/** The two-stage procedure in plain words, with the numbers this decision used. */
export function twoStageProcedure(alpha: number, design: ConfirmationDesign, screening: { readonly trials: number; readonly records: number }): Procedure {
  const [regression, fix] = design.families;
  const most = (f: typeof regression) => (f && f.cases.length > 0 ? Math.max(...f.cases.map((c) => c.trialsPerSide)) : null);
  const levels = splitAlpha(alpha);
  return {
    kind: 'two_stage',
    alpha,
    aggregateLevel: levels.aggregate,
    familyLevel: levels.regression,
    fixLevel: levels.fix,
    baselineRecords: screening.records,
    trialsPerSide: { regression: most(regression), fix: most(fix) },
    text:
      `Two stages. Screening: the candidate ran every case ${plural(screening.trials, 'time')}, against ${plural(screening.records, 'record')} of the baseline. ` +
      `A case was selected as a possible regression when the candidate did worse there and most baseline trials passed (${plural(regression?.cases.length ?? 0, 'case')}), ` +
      `as a possible fix when it did better and most baseline trials failed (${plural(fix?.cases.length ?? 0, 'case')}). ` +
      `Confirmation: each selected case ran again on fresh trials, both versions together and the same number a side, in looks of 1, 2, 4, 6, 8, 12, 16 … up to its K ` +
      `(the fewest trials, at most gate.maxConfirmTrials = ${design.policy.maxConfirmTrials}, whose full-size test has 90% power against a change of ${design.policy.detectableDrop} at its level; the early stops below give up a little of it, so the 80% figures under "what this gate could see" are for the design as run); ` +
      `it stopped early once its verdict was settled, or for futility once its predicted chance of ending significant fell below ${design.policy.futility}${matureNote(design)}. ` +
      `It is decided on those fresh trials alone by a one-sided exact test (Boschloo's), with a fifth of its level spent on an early look at 6 trials a side and a tenth on one at 12; ` +
      `cases share their family's level by weight (a unanimous screen weighs ${UNANIMOUS_WEIGHT} times as much), and weighted Holm names them (regressions at ${level(levels.regression)}, fixes at ${level(levels.fix)}). ` +
      `Worse overall? An exact one-sided sign test over the selected cases' first fresh pairs, at ${level(levels.aggregate)}. ` +
      `Hiding failures? When the candidate left a selected case ungraded on its own side, a one-sided Fisher test on the graded share of each side's fresh trials, at ${level(levels.infrastructure)}. Only a confirmed drop is named a regression; ` +
      'the early stops only ever name fewer cases than the full-size tests would, never more.',
    guarantee: twoStageGuarantee(alpha),
  };
}

/** The single-stage procedure (`compare`, `calibrate`): no fresh trials, every testable case in the family. */
export function singleStageProcedure(alpha: number): Procedure {
  const levels = splitAlpha(alpha, 'one');
  return {
    kind: 'single_stage',
    alpha,
    aggregateLevel: levels.aggregate,
    familyLevel: levels.regression,
    fixLevel: levels.fix,
    baselineRecords: 1,
    trialsPerSide: { regression: null, fix: null },
    text:
      `One stage (the runs cannot be re-run). An exact one-sided sign test over the cases whose pass counts differ asks whether ` +
      `the candidate is worse overall, at level ${level(levels.aggregate)}. Every case whose trials could show a difference is tested with a ` +
      `one-sided Fisher exact test, Holm-corrected over all of them at level ${level(levels.regression)} (fixes at ${level(levels.fix)}); with few trials per case no single ` +
      'case can reach that level, and only the paired test can reject.',
    guarantee: singleStageGuarantee(alpha),
  };
}

/**
 * Per-case tests on the screening data itself, for runs that cannot be re-run. Without fresh
 * trials the family must be every case that could show a difference (selecting the moved ones
 * on the same data would bias it); cases whose trials all agree (all pass, or all fail, on both
 * sides) can never be significant and are left out, as Fisher's test conditions on that total.
 */
export function singleStageTests(screening: Screening, alpha: number): CaseTest[] {
  const testable = screening.cases.filter((c) => {
    const passes = c.baseline.passes + c.candidate.passes;
    return passes > 0 && passes < c.baseline.graded + c.candidate.graded;
  });
  const levels = splitAlpha(alpha);
  const families = [
    { direction: 'regression' as const, moved: 'drop', level: levels.regression, p: (c: (typeof testable)[number]) => fisherDropPValue(c.baseline.passes, c.baseline.graded, c.candidate.passes, c.candidate.graded) },
    { direction: 'fix' as const, moved: 'rise', level: levels.fix, p: (c: (typeof testable)[number]) => fisherDropPValue(c.candidate.passes, c.candidate.graded, c.baseline.passes, c.baseline.graded) },
  ];
  return families.flatMap((family) => {
    const pValues = testable.map(family.p);
    const adjusted = holmAdjust(pValues);
    return testable.flatMap((c, i): CaseTest[] =>
      c.movement !== family.moved
        ? []
        : [
            {
              caseId: c.caseId,
              direction: family.direction,
              screening: { baseline: c.baseline, candidate: c.candidate },
              confirmation: null,
              pValue: pValues[i] as number,
              pBound: 'exact',
              adjustedPValue: adjusted[i] as number,
              outcome: meets(adjusted[i] as number, family.level) ? 'confirmed' : 'not_confirmed',
              weight: null,
              bar: null,
              trialsPerSide: null,
            },
          ],
    );
  });
}

/** The decision from the screening, the per-case tests and the policy. Pure. */
export function decideFlipsStatistically(input: {
  readonly policy: StatisticalPolicy;
  readonly screening: Screening;
  readonly tests: readonly CaseTest[];
  readonly procedure: Procedure;
  /** The paired test's evidence: fresh first pairs (two stages) or the screening runs (one stage). */
  readonly aggregate: { readonly worse: number; readonly better: number; readonly pValue: number; readonly source: 'fresh' | 'screening' };
  readonly power: PowerStatement;
  /** Infrastructure errors in the fresh trials of each side (two stages; null for one, which has no balance test). */
  readonly infrastructure: InfrastructureEvidence | null;
  readonly baseline: ReadonlyMap<string, CaseSummary>;
  readonly candidate: ReadonlyMap<string, CaseSummary>;
  readonly intent: ChangeIntent | null;
  readonly warnings: readonly string[];
}): FlipsDecision {
  const { policy, screening, tests, baseline, candidate, intent } = input;
  const named = (direction: CaseTest['direction']) => tests.filter((t) => t.direction === direction && t.outcome === 'confirmed').map((t) => t.caseId).sort();
  const regressions = named('regression');
  const fixes = named('fix');
  const moved = [...screening.drops, ...screening.rises];
  const flaky = moved.filter((id) => !regressions.includes(id) && !fixes.includes(id)).sort();
  // The balance test has its own share of alpha (two stages), so an unchanged agent's rejection through it is within the guarantee.
  const imbalance = input.infrastructure ? infrastructureBalanceCheck(input.infrastructure, { kind: 'test', alpha: splitAlpha(policy.alpha).infrastructure }) : null;
  // Cases the candidate itself left ungradable count against it once the imbalance is shown, for the graded share too; otherwise they are missing evidence.
  const ownFailures = imbalance && !imbalance.ok ? new Set(input.infrastructure?.candidateBlocked ?? []) : new Set<string>();
  const incomplete = tests.filter((t) => t.direction === 'regression' && t.outcome === 'incomplete' && !ownFailures.has(t.caseId)).map((t) => t.caseId);
  const aggregateLevel = input.procedure.aggregateLevel ?? splitAlpha(policy.alpha, input.procedure.kind === 'single_stage' ? 'one' : 'two').aggregate;
  const { worse, better, pValue, source } = input.aggregate;
  const pairs = source === 'fresh' ? 'moved cases\' first fresh pairs' : 'moved cases';
  const total = screening.cases.length + screening.ungraded.length + screening.unmatched.length;
  const basePassing = [...baseline.values()].filter((c) => c.outcome === 'pass').length;
  const baseFailing = [...baseline.values()].filter((c) => c.outcome === 'fail').length;

  const missing = screening.ungraded.filter((id) => !ownFailures.has(id));
  const checks: GateCheck[] = [
    gradedCheck(missing.length, total, policy.maxUngradedShare),
    ...(imbalance ? [imbalance] : []),
    ...(incomplete.length > 0
      ? [
          {
            name: 'confirmation' as const,
            ok: false,
            message: `${plural(incomplete.length, 'case')} whose outcome dropped could not be confirmed: too many infrastructure errors in their fresh trials${listed(incomplete)}`,
          },
        ]
      : []),
    {
      name: 'regressions',
      ok: regressions.length <= policy.maxSignificantRegressions,
      message:
        `${plural(regressions.length, 'confirmed regression')} (at most ${policy.maxSignificantRegressions} tolerated)${listed(regressions)}; ` +
        `${plural(flaky.length, 'moved case')} within noise`,
    },
    {
      name: 'paired_test',
      ok: !meets(pValue, aggregateLevel),
      // A statement, not a question: every output puts a ✓ or ✗ before it.
      message: `${meets(pValue, aggregateLevel) ? 'worse' : 'not worse'} than the baseline overall: in ${worse + better} of the ${pairs} that differ, ${worse} dropped: one-sided sign test p = ${pValue.toFixed(4)} (a regression at p ≤ ${level(aggregateLevel)})`,
    },
    ...intentChecks(fixes, baseline, intent, policy, 'confirmed', screening.rises.filter((id) => !fixes.includes(id))),
  ];
  return {
    policy: 'stochastic',
    ...verdictOf(checks),
    checks,
    warnings: [...input.warnings],
    p2f: regressions,
    f2p: fixes,
    flaky,
    screening: { p2f: [...screening.drops], f2p: [...screening.rises] },
    aggregate: { worse, better, pValue, level: aggregateLevel, source },
    tests: [...tests],
    procedure: input.procedure,
    rates: {
      p2fRate: basePassing === 0 ? 0 : regressions.length / basePassing,
      f2pRate: baseFailing === 0 ? 0 : fixes.length / baseFailing,
      hitRate: hitRateOf(fixes, baseline, intent),
    },
    passRates: { baseline: meanPassRate(baseline), candidate: meanPassRate(candidate) },
    power: input.power,
  };
}
