import type { Config } from '../config/schema.ts';
import type { ChangeIntent } from '../domain/release-candidate.ts';
import type { CaseSummary } from '../stages/gate/flips.ts';
import { changedCases, compareRuns, resolvePolicy, type ComparePolicy, type RunStats } from '../stages/gate/compare.ts';
import type { GateDecision } from '../stages/gate/gate.ts';
import { runVersion, withCheckout, type RunContext, type RunResult, type VersionSource } from './execute-run.ts';

export function comparePolicy(config: Config): ComparePolicy {
  return { ...config.gate };
}

export interface CandidateEvaluation {
  readonly decision: GateDecision;
  readonly candidateRun: RunResult;
  /** Confirmation runs (extra trials of the cases whose outcome changed), both sides. */
  readonly confirmRuns: RunResult[];
  readonly baselineCases: Map<string, CaseSummary>;
  readonly candidateCases: Map<string, CaseSummary>;
  readonly baselineStats: RunStats;
  readonly candidateStats: RunStats;
}

/**
 * Runs the RC over the same train cases and trials as the baseline, re-runs only the cases
 * whose outcome changed (confirmation, stochastic gate), then decides. Confirmation costs grow
 * with the number of flips, not with the size of the train set.
 */
export async function evaluateCandidate(
  context: RunContext,
  input: { baselineRun: RunResult; baselineCommit: string; candidate: VersionSource; label: string; intent: ChangeIntent | null },
): Promise<CandidateEvaluation> {
  const { config, store } = context.workspace;
  const candidateRun = await runVersion(context, { source: input.candidate, split: 'train', trials: config.trials, purpose: 'candidate', label: input.label });
  let baselineRecords = input.baselineRun.records;
  let candidateRecords = candidateRun.records;
  const confirmRuns: RunResult[] = [];
  const policy = comparePolicy(config);
  const changed = changedCases(baselineRecords, candidateRecords);
  if (resolvePolicy(policy.policy, config.trials) === 'stochastic' && config.gate.confirmTrials > 0 && changed.length > 0) {
    // The candidate gets the larger half: a regression needs the RC to keep failing.
    const forCandidate = Math.ceil(config.gate.confirmTrials / 2);
    const forBaseline = config.gate.confirmTrials - forCandidate;
    const confirm = { split: 'train' as const, purpose: 'confirm' as const, cases: changed, firstTrial: config.trials };
    const candidateConfirm = await runVersion(context, { ...confirm, source: input.candidate, trials: forCandidate, label: `${input.label} (confirming ${changed.length})` });
    confirmRuns.push(candidateConfirm);
    candidateRecords = [...candidateRecords, ...candidateConfirm.records];
    if (forBaseline > 0) {
      const baselineConfirm = await withCheckout(context.workspace, input.baselineCommit, (source) =>
        runVersion(context, { ...confirm, source, trials: forBaseline, label: `baseline (confirming ${changed.length})` }),
      );
      confirmRuns.push(baselineConfirm);
      baselineRecords = [...baselineRecords, ...baselineConfirm.records];
    }
  }
  const comparison = compareRuns({
    baseline: baselineRecords,
    candidate: candidateRecords,
    policy,
    plannedTrials: config.trials,
    knownFlaky: store.knownFlaky(input.baselineRun.taskTree, [input.baselineRun.blueprintTree, candidateRun.blueprintTree]),
    intent: input.intent,
  });
  return {
    decision: comparison.decision,
    candidateRun,
    confirmRuns,
    baselineCases: comparison.baselineCases,
    candidateCases: comparison.candidateCases,
    baselineStats: comparison.baseline,
    candidateStats: comparison.candidate,
  };
}
