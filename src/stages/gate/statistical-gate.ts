// The gate with a stated error rate. alpha is split by the union bound (splitAlpha): a third for
// the paired sign test over every case's screening outcome (never selected on, so exact), two
// thirds for the family of per-case regression tests (Holm). An unchanged agent is therefore
// rejected at most alpha of the time, whatever its per-case pass chances. Fixes are a separate
// family at the same level, so an RC is credited with a fix it did not make at most 2·alpha/3 of
// the time.
import type { CaseTest, FlipsDecision, GateCheck, Procedure } from '../../domain/decision.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { ConfirmationDesign } from './confirmation.ts';
import { meets } from './confirmation.ts';
import type { CaseSummary } from './flips.ts';
import { gradedCheck, hitRateOf, intentChecks, listed, pct, plural, verdictOf } from './gate.ts';
import { meanPassRate, type Screening } from './screening.ts';
import { fisherDropPValue, holmAdjust, splitAlpha } from './significance.ts';

export interface StatisticalPolicy {
  readonly alpha: number;
  /** Confirmed regressions still tolerated. */
  readonly maxSignificantRegressions: number;
  /** Confirmed fixes an RC with a change intent must show. */
  readonly minF2P: number;
  readonly minHitRate: number;
  readonly maxUngradedShare: number;
}

const guarantee = (alpha: number): string =>
  `an unchanged agent is rejected at most ${pct(alpha)} of the time, whatever its per-case pass chances; ` +
  `a case is named a regression (or a fix) it is not at most ${pct(splitAlpha(alpha).family)} of the time`;
const level = (x: number): string => String(Number(x.toPrecision(3)));

/** The two-stage procedure in plain words, with the numbers this decision used. */
export function twoStageProcedure(alpha: number, design: ConfirmationDesign, screeningTrials: number): Procedure {
  const [regression, fix] = design.families;
  const k = (f: typeof regression) => f?.trialsPerSide ?? null;
  return {
    kind: 'two_stage',
    alpha,
    aggregateLevel: splitAlpha(alpha).aggregate,
    familyLevel: splitAlpha(alpha).family,
    trialsPerSide: { regression: k(regression), fix: k(fix) },
    text:
      `Two stages. Screening: both versions ran every case ${plural(screeningTrials, 'time')}; an exact one-sided sign test over the cases ` +
      `whose pass counts differ asks whether the candidate is worse overall, at level ${level(splitAlpha(alpha).aggregate)}. Confirmation: every case whose ` +
      `outcome moved (${plural(regression?.cases.length ?? 0, 'drop')}, ${plural(fix?.cases.length ?? 0, 'rise')}) ran again on fresh trials, the same number ` +
      `on both sides, up to ${k(regression) ?? k(fix) ?? design.maxTrials} per side, stopping as soon as its verdict could no longer change; it is ` +
      `decided on those fresh trials alone by a one-sided exact test (Boschloo's unconditional test), Holm-corrected within its family (drops, rises) at level ${level(splitAlpha(alpha).family)}. ` +
      'Only a confirmed drop is named a regression.',
    guarantee: guarantee(alpha),
  };
}

/** The single-stage procedure (`compare`, `calibrate`): no fresh trials, every testable case in the family. */
export function singleStageProcedure(alpha: number): Procedure {
  return {
    kind: 'single_stage',
    alpha,
    aggregateLevel: splitAlpha(alpha).aggregate,
    familyLevel: splitAlpha(alpha).family,
    trialsPerSide: { regression: null, fix: null },
    text:
      `One stage (the runs cannot be re-run). An exact one-sided sign test over the cases whose pass counts differ asks whether ` +
      `the candidate is worse overall, at level ${level(splitAlpha(alpha).aggregate)}. Every case whose trials could show a difference is tested with a ` +
      `one-sided Fisher exact test, Holm-corrected over all of them at level ${level(splitAlpha(alpha).family)}; with few trials per case no single ` +
      'case can reach that level, and only the paired test can reject.',
    guarantee: guarantee(alpha),
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
  const families = [
    { direction: 'regression' as const, moved: 'drop', p: (c: (typeof testable)[number]) => fisherDropPValue(c.baseline.passes, c.baseline.graded, c.candidate.passes, c.candidate.graded) },
    { direction: 'fix' as const, moved: 'rise', p: (c: (typeof testable)[number]) => fisherDropPValue(c.candidate.passes, c.candidate.graded, c.baseline.passes, c.baseline.graded) },
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
              outcome: meets(adjusted[i] as number, splitAlpha(alpha).family) ? 'confirmed' : 'not_confirmed',
            },
          ],
    );
  });
}

/** The decision from the screening, the per-case tests and the policy. Pure. */
export function decideStatistical(input: {
  readonly policy: StatisticalPolicy;
  readonly screening: Screening;
  readonly tests: readonly CaseTest[];
  readonly procedure: Procedure;
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
  const incomplete = tests.filter((t) => t.direction === 'regression' && t.outcome === 'incomplete').map((t) => t.caseId);
  const aggregateLevel = input.procedure.aggregateLevel ?? splitAlpha(policy.alpha).aggregate;
  const { worse, better, pValue } = screening.aggregate;
  const total = screening.cases.length + screening.ungraded.length + screening.unmatched.length;
  const basePassing = [...baseline.values()].filter((c) => c.outcome === 'pass').length;
  const baseFailing = [...baseline.values()].filter((c) => c.outcome === 'fail').length;

  const checks: GateCheck[] = [
    gradedCheck(screening.ungraded.length, total, policy.maxUngradedShare),
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
      message: `worse than the baseline overall? ${worse} of ${worse + better} moved cases dropped: one-sided sign test p = ${pValue.toFixed(4)} (a regression at p ≤ ${level(aggregateLevel)})`,
    },
    ...intentChecks(fixes, baseline, intent, policy, 'confirmed'),
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
    aggregate: { worse, better, pValue, level: aggregateLevel },
    tests: [...tests],
    procedure: input.procedure,
    rates: {
      p2fRate: basePassing === 0 ? 0 : regressions.length / basePassing,
      f2pRate: baseFailing === 0 ? 0 : fixes.length / baseFailing,
      hitRate: hitRateOf(fixes, baseline, intent),
    },
    passRates: { baseline: meanPassRate(baseline), candidate: meanPassRate(candidate) },
  };
}
