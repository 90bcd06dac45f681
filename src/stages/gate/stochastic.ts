import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { CaseSummary } from './flips.ts';
import { gradedCheck, hitRateCheck, hitRateOf, passRate, verdictOf, type GateCheck, type GateDecision } from './gate.ts';
import { fisherDropPValue, signTestOneSided } from './significance.ts';

export interface StochasticPolicy {
  /** Significance level of the paired test and of the per-case tests. */
  readonly alpha: number;
  /** Regressions the evidence supports that are still tolerated. */
  readonly maxSignificantRegressions: number;
  /** Fixes an RC with a change intent must show. */
  readonly minF2P: number;
  readonly minHitRate: number;
  readonly maxUngradedShare: number;
}

export type CaseClass = 'regression' | 'fix' | 'flaky' | 'unchanged';

export interface ClassifiedCase {
  readonly caseId: string;
  readonly kind: CaseClass;
  readonly baseline: CaseSummary;
  readonly candidate: CaseSummary;
  /** One-sided Fisher p-values of a drop and of a rise in this case's pass rate. */
  readonly dropP: number;
  readonly riseP: number;
}

const mixed = (c: CaseSummary): boolean => c.passes > 0 && c.passes < c.graded;
const rate = (c: CaseSummary): number => (c.graded === 0 ? 0 : c.passes / c.graded);

/**
 * Classifies each case from its trial outcomes in both versions: a consistent regression
 * (always passed, now always fails), a consistent fix, flaky (it varies within a version, here
 * or in the history of earlier runs), or unchanged.
 */
export function classifyCases(
  baseline: ReadonlyMap<string, CaseSummary>,
  candidate: ReadonlyMap<string, CaseSummary>,
  knownFlaky: ReadonlySet<string>,
): ClassifiedCase[] {
  const out: ClassifiedCase[] = [];
  for (const [caseId, before] of [...baseline].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const after = candidate.get(caseId);
    if (!after || before.graded === 0 || after.graded === 0) continue;
    const dropP = fisherDropPValue(before.passes, before.graded, after.passes, after.graded);
    const riseP = fisherDropPValue(after.passes, after.graded, before.passes, before.graded);
    let kind: CaseClass;
    if (knownFlaky.has(caseId) || mixed(before) || mixed(after)) kind = 'flaky';
    else if (before.passes === before.graded && after.passes === 0) kind = 'regression';
    else if (before.passes === 0 && after.passes === after.graded) kind = 'fix';
    else kind = 'unchanged';
    out.push({ caseId, kind, baseline: before, candidate: after, dropP, riseP });
  }
  return out;
}

/**
 * The gate for stochastic agents. A consistent regression counts; a flaky case counts only when
 * its pass rate drops significantly (Fisher's exact test at alpha); and the exact sign test over
 * discordant cases rejects a candidate that is worse overall even when no single case is.
 */
export function decideStochastic(input: {
  readonly policy: StochasticPolicy;
  readonly baseline: ReadonlyMap<string, CaseSummary>;
  readonly candidate: ReadonlyMap<string, CaseSummary>;
  readonly knownFlaky: ReadonlySet<string>;
  readonly intent: ChangeIntent | null;
}): GateDecision {
  const { policy, baseline, candidate, intent } = input;
  const cases = classifyCases(baseline, candidate, input.knownFlaky);
  const ids = (kind: CaseClass) => cases.filter((c) => c.kind === kind).map((c) => c.caseId);
  const regressions = ids('regression');
  const fixes = ids('fix');
  const flakyChanged = cases.filter((c) => c.kind === 'flaky' && rate(c.baseline) !== rate(c.candidate));
  const significant = {
    regressions: [...regressions, ...flakyChanged.filter((c) => c.dropP < policy.alpha).map((c) => c.caseId)].sort(),
    fixes: [...fixes, ...flakyChanged.filter((c) => c.riseP < policy.alpha).map((c) => c.caseId)].sort(),
  };
  const worse = cases.filter((c) => c.baseline.outcome === 'pass' && c.candidate.outcome === 'fail').length;
  const better = cases.filter((c) => c.baseline.outcome === 'fail' && c.candidate.outcome === 'pass').length;
  const pValue = signTestOneSided(worse, better);

  const total = new Set([...baseline.keys(), ...candidate.keys()]).size;
  const ungraded = total - cases.length;
  const basePassing = [...baseline.values()].filter((c) => c.outcome === 'pass').length;
  const baseFailing = [...baseline.values()].filter((c) => c.outcome === 'fail').length;
  const shown = (list: readonly string[]) => (list.length > 0 ? `: ${list.slice(0, 10).join(', ')}${list.length > 10 ? ', …' : ''}` : '');

  const checks: GateCheck[] = [
    gradedCheck(ungraded, total, policy.maxUngradedShare),
    {
      name: 'significant_regressions',
      ok: significant.regressions.length <= policy.maxSignificantRegressions,
      message: `${significant.regressions.length} regression${significant.regressions.length === 1 ? '' : 's'} the evidence supports (at most ${policy.maxSignificantRegressions} tolerated)${shown(significant.regressions)}; ${flakyChanged.length} flaky case${flakyChanged.length === 1 ? '' : 's'} changed within noise`,
    },
    {
      name: 'paired_test',
      ok: pValue >= policy.alpha,
      message: `paired sign test over ${worse + better} discordant cases (${worse} worse, ${better} better): one-sided p = ${pValue.toFixed(4)} (regression if below ${policy.alpha})`,
    },
  ];
  if (intent) {
    checks.push(
      {
        name: 'fixes',
        ok: significant.fixes.length >= policy.minF2P,
        message: `${significant.fixes.length} fix${significant.fixes.length === 1 ? '' : 'es'} the evidence supports (at least ${policy.minF2P} required)`,
      },
      hitRateCheck(significant.fixes, baseline, intent, policy.minHitRate),
    );
  }
  return {
    policy: 'stochastic',
    ...verdictOf(checks),
    checks,
    p2f: regressions,
    f2p: fixes,
    flaky: flakyChanged.map((c) => c.caseId),
    significant,
    pValue,
    p2fRate: basePassing === 0 ? 0 : regressions.length / basePassing,
    f2pRate: baseFailing === 0 ? 0 : fixes.length / baseFailing,
    hitRate: hitRateOf(significant.fixes, baseline, intent),
    baselinePassRate: passRate(baseline),
    candidatePassRate: passRate(candidate),
  };
}
