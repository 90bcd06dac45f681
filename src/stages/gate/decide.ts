// The gate's decision as a pure function of its evidence (AutoEvolve's layered gate): the
// pipeline gathers what the layers read (the blueprint checks' outcomes, the statistical gate's
// decision on the screen and the fresh trials, the runs' records and trace costs, the task's
// requirements and train cases, the requirements reviewer's verdicts) and `decideCandidate` turns it into
// one GateDecision. The reviewer is a model: `reviewerQuestion` says whether (and about which
// cases) to ask it, which is only when every other layer accepts, so it can only veto.
import { ABLATION_TEXT, type Ablation } from '../../domain/ablation.ts';
import type { Case } from '../../domain/case.ts';
import type { GateCheck, GateDecision, LayerVerdict } from '../../domain/decision.ts';
import type { CaseRecord } from '../../domain/record.ts';
import { caseRequirements, type Requirement } from '../../domain/requirements.ts';
import { PAPER_COST_WEIGHTS, type CostWeights } from '../score/trace-cost.ts';
import { caseSubScores, composite, pairedImprovement, runSubScores, type CompositeWeights } from './efficiency.ts';
import { notRunDecision, plural, scopeRejection } from './face-value-gate.ts';
import { checksLayer, composeLayers, flipsOnly, notRun, requirementsLayer, resolveMustPass, type BlueprintCheckOutcome, type Violation } from './layers.ts';
import { requirementFlips, violationRate } from './requirements.ts';
import { meets } from './significance.ts';

/** How the gate decides: its layers as the config names them, and the switches of this decision. */
export interface DecisionPolicy {
  /** The blueprint the candidate may edit (a scope rejection names its folder). */
  readonly blueprint: string;
  /** The checks layer: its must-pass entries (case ids or "tag:NAME") and its trace-cost limit; null when the gate has none. */
  readonly checks: { readonly mustPass: readonly string[]; readonly maxTraceCost: number | null } | null;
  /** The requirements layer, with its most requirement-violation rate (null: no limit); null when the gate has none. */
  readonly requirements: { readonly maxViolationRate: number | null } | null;
  /** An RC that fixes and breaks nothing may be promoted on a significantly better per-case score, at level `alpha`. */
  readonly efficiency: { readonly allowed: boolean; readonly alpha: number };
  /** The composite score's weights (report.composite): reported, and the efficiency release's measure; null when unset. */
  readonly composite: CompositeWeights | null;
  /** An accepted candidate is held for a person's approval (the approval layer, on a recorded decision). */
  readonly approval: boolean;
  /** The experiment's switch the decision runs under (iterate --ablate, scratch lines only). */
  readonly ablation: Ablation | null;
}

/** The mean trace cost of a run's graded case-trials, over all and per case. */
export interface RunCosts {
  /** Mean R_cost per graded case-trial. */
  readonly mean: number;
  /** Mean R_cost of each case's graded trials. */
  readonly perCase: ReadonlyMap<string, number>;
}

/** What the candidate's runs showed (absent when it did not run). */
export interface CandidateEvidence {
  /** The statistical gate's decision, on the screen and the fresh trials. */
  readonly decision: GateDecision;
  readonly records: {
    /** The release's first record (its ordinary run) and the candidate's screening run. */
    readonly baseline: readonly CaseRecord[];
    readonly candidate: readonly CaseRecord[];
    /** Every trial the candidate played, its confirmation runs too (the must-pass cases are held to all of them). */
    readonly candidateTrials: readonly CaseRecord[];
  };
  /** The trace costs of both screening runs, with their weights (read only when a layer or the report uses them: `needsCosts`). */
  readonly costs: { readonly weights: CostWeights; readonly baseline: RunCosts; readonly candidate: RunCosts } | null;
  /** The candidate's task: its rubric's requirements and its train cases (must-pass tags, each case's own requirements). */
  readonly task: { readonly requirements: readonly Requirement[]; readonly trainCases: readonly Case[] };
}

export interface GateEvidence {
  /** Paths the candidate edits outside its blueprint (or links leading out of it): it is rejected without running. */
  readonly outside: readonly string[];
  /** The blueprint's own checks, run on the candidate's checkout before any case. */
  readonly blueprintChecks: readonly BlueprintCheckOutcome[];
  /** Null when the candidate did not run (out of scope, or a blueprint check failed). */
  readonly candidate: CandidateEvidence | null;
  /** The requirements reviewer's verdicts; null when it was not asked (`reviewerQuestion` says when it must be). */
  readonly review: { readonly violations: readonly Violation[] } | null;
}

/** The weights of R_cost: the task's cost scorer's, else the paper's. */
export function costWeights(scorers: readonly { kind: string; weights?: Partial<CostWeights> }[]): CostWeights {
  const cost = scorers.find((s) => s.kind === 'cost');
  return { ...PAPER_COST_WEIGHTS, ...(cost?.weights ?? {}) };
}

/** Whether anything reads the runs' trace costs: a cost limit, an efficiency release, or the composite. */
export function needsCosts(policy: DecisionPolicy): boolean {
  return (policy.checks?.maxTraceCost ?? null) !== null || policy.efficiency.allowed || policy.composite !== null;
}

/** Every trial the candidate played: its screening run and its own confirmation runs (never the baseline's). */
export function candidateTrialsOf(
  screening: readonly CaseRecord[],
  confirmRuns: ReadonlyArray<{ readonly runId: string; readonly side: 'baseline' | 'candidate' }>,
  store: { records(runId: string): readonly CaseRecord[] },
): CaseRecord[] {
  return [...screening, ...confirmRuns.filter((r) => r.side === 'candidate').flatMap((r) => store.records(r.runId))];
}

/**
 * What to ask the requirements reviewer: the cases whose outcome moved in screening, when the
 * gate has the layer and every other layer accepts the candidate; null when it is not to be
 * asked (it may only veto, so it is never asked about a candidate already rejected).
 */
export function reviewerQuestion(evidence: GateEvidence, policy: DecisionPolicy): { readonly moved: readonly string[] } | null {
  if (!policy.requirements || evidence.outside.length > 0 || !evidence.candidate) return null;
  const { flips, checks } = beforeReview(evidence, policy);
  if (composeLayers(flips, checks ? { checks } : {}).verdict !== 'accept') return null;
  return { moved: [...new Set([...flips.screening.p2f, ...flips.screening.f2p])] };
}

/**
 * The gate's decision, layer by layer: the deterministic checks, the statistical gate on flips
 * (with the efficiency tie-break), the requirements review, and the approval hold. A veto of the
 * checks stands whatever the flips say, and a candidate a blueprint check vetoed never ran.
 */
export function decideCandidate(evidence: GateEvidence, policy: DecisionPolicy): GateDecision {
  const gated = layered(evidence, policy);
  const { ablation } = policy;
  // no-gate: every valid RC (in scope, its checks passed, run) is promoted; what the gate would
  // have said stays in the decision, with its flips.
  if (ablation === 'no-gate' && evidence.candidate) return ungated(gated);
  return ablation ? { ...gated, reasons: [...gated.reasons, `ablation ${ablation}: ${ABLATION_TEXT[ablation]}`] } : gated;
}

function layered(evidence: GateEvidence, policy: DecisionPolicy): GateDecision {
  if (evidence.outside.length > 0) return flipsOnly(scopeRejection(evidence.outside, policy.blueprint));
  const { flips, checks } = beforeReview(evidence, policy);
  let requirements: LayerVerdict | undefined;
  if (policy.requirements) {
    const limit = policy.requirements.maxViolationRate;
    if (reviewerQuestion(evidence, policy) === null) requirements = notRun('requirements', 'not asked: an earlier layer rejected the candidate');
    else if (!evidence.review || !evidence.candidate) throw new Error('decide: the requirements reviewer was not asked (reviewerQuestion names what to ask it)');
    else requirements = requirementsLayer({ violations: evidence.review.violations, violationRate: limit === null ? null : { rate: violationRate(evidence.candidate.records.candidate).rate, limit } });
  }
  return composeLayers(flips, { ...(checks ? { checks } : {}), ...(requirements ? { requirements } : {}), approval: policy.approval });
}

/** The statistical gate's decision with the cost summary and the requirement flips, and the checks layer's verdict. */
function beforeReview(evidence: GateEvidence, policy: DecisionPolicy): { readonly flips: GateDecision; readonly checks: LayerVerdict | null } {
  const ran = evidence.candidate;
  let flips = ran ? withCostAndEfficiency(ran, policy) : notRunFlips(`${plural(evidence.blueprintChecks.filter((c) => !c.ok).length, 'blueprint check')} failed, so the candidate was not run`);
  if (ran && hasRequirements(ran.task)) {
    const { baseline, candidate } = ran.records;
    const byId = new Map(ran.task.trainCases.map((c) => [c.id, c]));
    const requirementsOf = (caseId: string) => caseRequirements(ran.task.requirements, byId.get(caseId) ?? { id: caseId });
    const candidateRate = violationRate(candidate);
    flips = {
      ...flips,
      requirements: {
        ...requirementFlips(baseline, candidate, requirementsOf),
        violationRate: { baseline: violationRate(baseline).rate, candidate: candidateRate.rate, cases: candidateRate.cases },
      },
    };
  }
  if (!policy.checks) return { flips, checks: null };
  const { mustPass, maxTraceCost } = policy.checks;
  const checks = checksLayer({
    mustPass: mustPass.length > 0 && ran ? { cases: resolveMustPass(mustPass, ran.task.trainCases).cases, candidate: ran.records.candidateTrials } : null,
    blueprintChecks: evidence.blueprintChecks,
    traceCost: maxTraceCost !== null && ran?.costs ? { limit: maxTraceCost, candidate: ran.costs.candidate.mean } : null,
  });
  return { flips, checks };
}

const hasRequirements = (task: CandidateEvidence['task']): boolean => task.requirements.length > 0 || task.trainCases.some((c) => c.requirements !== undefined);

function notRunFlips(message: string): GateDecision {
  const decision = flipsOnly(notRunDecision('blueprint_check', message));
  return { ...decision, layers: decision.layers.map((l) => (l.layer === 'flips' ? { ...l, verdict: 'not_run' as const } : l)) };
}

/** The no-gate ablation's decision: accepted, with the gate's own verdict and reasons kept beside it. */
function ungated(decision: GateDecision): GateDecision {
  return {
    ...decision,
    verdict: 'accept',
    reasons: [`ablation no-gate: promoted whatever the gate said; the gate said ${decision.verdict}${decision.reasons.length ? `: ${decision.reasons.join('; ')}` : ''}`],
  };
}

/**
 * Adds the cost summary and the composite, and settles one tie: an RC that fixes and breaks
 * nothing, rejected only for want of fixes, is promoted on efficiency when the config allows it
 * and its per-case score (the composite, or lower trace cost) is significantly better.
 */
function withCostAndEfficiency(ran: CandidateEvidence, policy: DecisionPolicy): GateDecision {
  const { decision, costs } = ran;
  const weightsOfComposite = policy.composite;
  const perCase = { baseline: caseSubScores(ran.records.baseline, costs?.baseline.perCase ?? null), candidate: caseSubScores(ran.records.candidate, costs?.candidate.perCase ?? null) };
  const compositeSummary = weightsOfComposite
    ? { weights: { ...weightsOfComposite }, baseline: composite(weightsOfComposite, runSubScores(perCase.baseline)), candidate: composite(weightsOfComposite, runSubScores(perCase.candidate)) }
    : null;
  const cost = costs ? { weights: { ...costs.weights }, baseline: costs.baseline.mean, candidate: costs.candidate.mean } : null;

  const onlyWantsFixes = decision.verdict === 'reject' && decision.checks.filter((c) => !c.ok).every((c) => c.name === 'fixes' || c.name === 'hit_rate');
  const tie = decision.f2p.length === 0 && decision.p2f.length === 0 && onlyWantsFixes;
  if (!policy.efficiency.allowed || !tie || !costs) return { ...decision, cost, composite: compositeSummary, efficiency: null };

  const measure = weightsOfComposite ? ('composite' as const) : ('cost' as const);
  const score = (side: 'baseline' | 'candidate') =>
    new Map(
      [...perCase[side]].map(([id, sub]) => [id, weightsOfComposite ? composite(weightsOfComposite, sub) : -(costs[side].perCase.get(id) ?? 0)]),
    );
  const test = pairedImprovement(score('baseline'), score('candidate'));
  const { alpha } = policy.efficiency;
  const promoted = meets(test.pValue, alpha);
  const check: GateCheck = {
    name: 'efficiency',
    ok: promoted,
    message: `efficiency release? ${test.better} of ${test.better + test.worse} cases ${measure === 'cost' ? 'cost less' : 'score higher on the composite'}: one-sided sign test p = ${test.pValue.toFixed(4)} (promoted on efficiency at p ≤ ${alpha})`,
  };
  const efficiency = { measure, ...test, promoted };
  if (!promoted) return { ...decision, checks: [...decision.checks, check], reasons: [...decision.reasons, check.message], cost, composite: compositeSummary, efficiency };
  // The fixes and hit-rate checks give way: the release is for its cost, and the report says so.
  const checks = [...decision.checks.map((c) => (c.name === 'fixes' || c.name === 'hit_rate' ? { ...c, ok: true, message: `${c.message} (waived: an efficiency release)` } : c)), check];
  return {
    ...decision,
    verdict: 'accept',
    checks,
    reasons: [`promoted on efficiency: ${check.message}`, ...checks.filter((c) => c.name !== 'graded' && c.name !== 'efficiency').map((c) => c.message)],
    layers: decision.layers.map((l) => (l.layer === 'flips' ? { ...l, verdict: 'accept' as const, checks } : l)),
    cost,
    composite: compositeSummary,
    efficiency,
  };
}
