import type { Config } from '../config/schema.ts';
import type { ChangeIntent } from '../domain/release-candidate.ts';
import { computeFlips, summarizeCases, type CaseSummary } from '../stages/gate/flips.ts';
import { decideGate, type GateDecision, type GatePolicy } from '../stages/gate/gate.ts';
import { runVersion, type RunContext, type RunResult, type VersionSource } from './execute-run.ts';

export function gatePolicy(config: Config): GatePolicy {
  return { ...config.gate };
}

export interface CandidateEvaluation {
  readonly decision: GateDecision;
  readonly candidateRun: RunResult;
  readonly baselineCases: Map<string, CaseSummary>;
  readonly candidateCases: Map<string, CaseSummary>;
}

/** Runs the RC over the same train cases and trials as the baseline, then applies the flip gate. */
export async function evaluateCandidate(
  context: RunContext,
  input: { baselineRun: RunResult; candidate: VersionSource; label: string; intent: ChangeIntent | null },
): Promise<CandidateEvaluation> {
  const { config } = context.workspace;
  const candidateRun = await runVersion(context, {
    source: input.candidate,
    split: 'train',
    trials: config.trials,
    purpose: 'candidate',
    label: input.label,
  });
  const baselineCases = summarizeCases(input.baselineRun.records);
  const candidateCases = summarizeCases(candidateRun.records);
  const decision = decideGate({
    policy: gatePolicy(config),
    flips: computeFlips(baselineCases, candidateCases),
    baseline: baselineCases,
    candidate: candidateCases,
    intent: input.intent,
  });
  return { decision, candidateRun, baselineCases, candidateCases };
}
