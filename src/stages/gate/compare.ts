import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { CaseRecord } from '../../domain/record.ts';
import { estimateTables, type EstimateTable } from './estimators.ts';
import { computeFlips, summarizeCases, type CaseSummary } from './flips.ts';
import { decideGate, passRate, type GateDecision, type GatePolicy, type GatePolicyKind } from './gate.ts';
import { decideStochastic, type StochasticPolicy } from './stochastic.ts';

export interface ComparePolicy extends GatePolicy, StochasticPolicy {
  /** auto: the paper-faithful flip gate with one trial per case, the stochastic gate with more. */
  readonly policy: 'auto' | GatePolicyKind;
}

export interface RunStats {
  readonly passRate: number;
  readonly passHat: EstimateTable;
  readonly passAt: EstimateTable;
  readonly cases: number;
  readonly trials: number;
}

export interface Comparison {
  readonly baseline: RunStats;
  readonly candidate: RunStats;
  readonly decision: GateDecision;
  readonly baselineCases: Map<string, CaseSummary>;
  readonly candidateCases: Map<string, CaseSummary>;
}

function stats(cases: ReadonlyMap<string, CaseSummary>): RunStats {
  const list = [...cases.values()];
  return {
    passRate: passRate(cases),
    ...estimateTables(list),
    cases: list.length,
    trials: list.reduce((most, c) => Math.max(most, c.graded), 0),
  };
}

export function resolvePolicy(policy: ComparePolicy['policy'], trialsPerCase: number): GatePolicyKind {
  if (policy !== 'auto') return policy;
  return trialsPerCase > 1 ? 'stochastic' : 'flips';
}

/**
 * Compares two runs of the same cases: estimators for each, then the gate decision. Both
 * `agentdevel compare` and the release gate come through here.
 */
export function compareRuns(input: {
  readonly baseline: readonly CaseRecord[];
  readonly candidate: readonly CaseRecord[];
  readonly policy: ComparePolicy;
  /** Trials per case as planned (before confirmation re-runs), which picks the automatic policy. */
  readonly plannedTrials: number;
  readonly knownFlaky: ReadonlySet<string>;
  readonly intent: ChangeIntent | null;
}): Comparison {
  const baselineCases = summarizeCases(input.baseline);
  const candidateCases = summarizeCases(input.candidate);
  const kind = resolvePolicy(input.policy.policy, input.plannedTrials);
  const decision =
    kind === 'flips'
      ? decideGate({ policy: input.policy, flips: computeFlips(baselineCases, candidateCases), baseline: baselineCases, candidate: candidateCases, intent: input.intent })
      : decideStochastic({ policy: input.policy, baseline: baselineCases, candidate: candidateCases, knownFlaky: input.knownFlaky, intent: input.intent });
  return { baseline: stats(baselineCases), candidate: stats(candidateCases), decision, baselineCases, candidateCases };
}

/** The cases whose outcome differs between two runs: the only ones a confirmation re-runs. */
export function changedCases(baseline: readonly CaseRecord[], candidate: readonly CaseRecord[]): string[] {
  const flips = computeFlips(summarizeCases(baseline), summarizeCases(candidate));
  return [...flips.p2f, ...flips.f2p].sort();
}
