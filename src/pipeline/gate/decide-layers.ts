import type { Config } from '../../config/schema.ts';
import type { GateCheck, GateDecision, LayerVerdict } from '../../domain/decision.ts';
import type { CaseRecord } from '../../domain/record.ts';
import type { Reporter } from '../../domain/ports/reporter.ts';
import { caseSubScores, composite, pairedImprovement, runSubScores } from '../../stages/gate/efficiency.ts';
import { flipsOnly, checksLayer, composeLayers, notRun, requirementsLayer, type BlueprintCheckOutcome } from '../../stages/gate/layers.ts';
import { requirementFlips, violationRate } from '../../stages/gate/requirements.ts';
import { readTrace } from '../../stages/run/trace-file.ts';
import { caseRequirements } from '../../domain/requirements.ts';
import type { ModelPort } from '../../domain/ports/model.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { notRunDecision, plural } from '../../stages/gate/gate.ts';
import { meets } from '../../stages/gate/significance.ts';
import { PAPER_COST_WEIGHTS, type CostWeights } from '../../stages/score/trace-cost.ts';
import { loadSplit, loadTask, type Task } from '../../adapters/task/load.ts';
import type { CandidateEvaluation } from './evaluate-candidate.ts';
import { refuseUnknownMustPass, resolveMustPass, runCosts, type RunCosts } from './layer-evidence.ts';
import type { RunResult } from '../run/execute-run.ts';

type ChecksConfig = Extract<Config['gate']['layers'][number], { layer: 'checks' }>;

export function checksConfig(config: Config): ChecksConfig | null {
  return (config.gate.layers.find((l) => l.layer === 'checks') as ChecksConfig | undefined) ?? null;
}

/** The weights of R_cost: the task's cost scorer's, else the paper's. */
function costWeights(scorers: readonly { kind: string; weights?: Partial<CostWeights> }[]): CostWeights {
  const cost = scorers.find((s) => s.kind === 'cost');
  return { ...PAPER_COST_WEIGHTS, ...(cost?.weights ?? {}) };
}

export interface LayerInputs {
  readonly config: Config;
  readonly tracesRoot: string;
  readonly reporter: Reporter;
  /** A checkout of the candidate (its task files resolve the must-pass tags). */
  readonly candidateDir: string;
  readonly baselineRun: RunResult | null;
  readonly evaluation: CandidateEvaluation | null;
  /** The blueprint checks already run on the candidate's checkout (before any case ran). */
  readonly blueprintChecks: readonly BlueprintCheckOutcome[];
  readonly approval: boolean;
  /** For the requirements layer's review (the critic's model). */
  readonly model: ModelPort;
  /** Where the runs' records are (a run keeps only its per-case counts in memory). */
  readonly store: { records(runId: string): CaseRecord[] };
}

/**
 * The gate's decision, layer by layer: the deterministic checks, the statistical gate on flips
 * (with the efficiency tie-break), and the approval hold. A veto of the checks stands whatever
 * the flips say, and a candidate a blueprint check vetoed is never run.
 */
export async function decideLayers(inputs: LayerInputs): Promise<GateDecision> {
  const { config, evaluation } = inputs;
  const checks = checksConfig(config);
  const task = await loadTask(inputs.candidateDir, config.task);
  const weights = costWeights(task.manifest.scorers);
  const baselineRecords = inputs.baselineRun ? inputs.store.records(inputs.baselineRun.runId) : [];
  const candidateRecords = evaluation ? inputs.store.records(evaluation.candidateRun.runId) : [];
  let decision: GateDecision = evaluation
    ? evaluation.decision
    : notRunFlips(`${plural(inputs.blueprintChecks.filter((c) => !c.ok).length, 'blueprint check')} failed, so the candidate was not run`);

  // Costs are read from the traces only when something uses them.
  const needCosts = evaluation !== null && (checks?.maxTraceCost !== undefined || config.gate.allowEfficiencyReleases || config.report.composite !== undefined);
  const costs =
    needCosts && evaluation && inputs.baselineRun
      ? { baseline: await runCosts(baselineRecords, inputs.tracesRoot, weights), candidate: await runCosts(candidateRecords, inputs.tracesRoot, weights) }
      : null;
  if (evaluation && inputs.baselineRun) decision = withCostAndEfficiency(decision, config, baselineRecords, candidateRecords, costs, weights);

  const cases = await loadSplit(task, 'train');
  const byId = new Map(cases.map((c) => [c.id, c]));
  const requirementsOf = (caseId: string) => caseRequirements(task.requirements, byId.get(caseId) ?? { id: caseId });
  const hasRequirements = task.requirements.length > 0 || cases.some((c) => c.requirements !== undefined);
  if (hasRequirements && evaluation && inputs.baselineRun) {
    const candidateRate = violationRate(candidateRecords);
    decision = {
      ...decision,
      requirements: {
        ...requirementFlips(baselineRecords, candidateRecords, requirementsOf),
        violationRate: { baseline: violationRate(baselineRecords).rate, candidate: candidateRate.rate, cases: candidateRate.cases },
      },
    };
  }

  let checksVerdict: LayerVerdict | undefined;
  if (checks) {
    refuseUnknownMustPass(config, cases);
    const mustPass = resolveMustPass(checks.mustPass, cases);
    const candidateTrials = evaluation ? candidateTrialsOf(candidateRecords, evaluation.confirmRuns, inputs.store) : [];
    checksVerdict = checksLayer({
      mustPass: checks.mustPass.length > 0 && evaluation ? { cases: mustPass.cases, candidate: candidateTrials } : null,
      blueprintChecks: inputs.blueprintChecks,
      traceCost: checks.maxTraceCost !== undefined && costs ? { limit: checks.maxTraceCost, candidate: costs.candidate.mean } : null,
    });
  }
  const withChecks = { ...(checksVerdict ? { checks: checksVerdict } : {}) };
  let requirementsVerdict: LayerVerdict | undefined;
  if (config.gate.layers.some((l) => l.layer === 'requirements')) {
    // The review may only veto: it is asked only about a candidate every other layer accepts.
    requirementsVerdict =
      composeLayers(decision, withChecks).verdict === 'accept' && evaluation
        ? await reviewRequirements(inputs, task, candidateRecords, decision)
        : notRun('requirements', 'not asked: an earlier layer rejected the candidate');
  }
  return composeLayers(decision, { ...withChecks, ...(requirementsVerdict ? { requirements: requirementsVerdict } : {}), approval: inputs.approval });
}

/**
 * The requirements layer: the critic's model reviews the candidate's traces of the cases whose
 * outcome moved against the rubric's requirements, blind to the blueprint; and the candidate's
 * requirement-violation rate is held to gate.maxViolationRate.
 */
async function reviewRequirements(inputs: LayerInputs, task: Task, candidateRecords: readonly CaseRecord[], decision: GateDecision): Promise<LayerVerdict> {
  const moved = new Set([...decision.screening.p2f, ...decision.screening.f2p]);
  const traces: Array<{ caseId: string; trace: TraceEvent[] }> = [];
  for (const record of candidateRecords) {
    if (!moved.has(record.caseId) || record.status !== 'ok' || traces.some((t) => t.caseId === record.caseId)) continue;
    traces.push({ caseId: record.caseId, trace: (await readTrace(inputs.tracesRoot, record.traceRef)) ?? [] });
  }
  if (task.requirements.length === 0) inputs.reporter.emit({ type: 'warning', message: 'gate layer "requirements": the rubric declares no requirements (a ```json requirements block), so there is nothing to review' });
  const violations =
    traces.length === 0 || task.requirements.length === 0
      ? []
      : (
          await inputs.model.reviewRequirements({
            model: inputs.config.models.critic,
            rubric: task.rubric,
            requirements: task.requirements.map((r) => ({ id: r.id, text: r.text, symptoms: r.symptoms })),
            cases: traces,
          })
        ).value.violations;
  const limit = inputs.config.gate.maxViolationRate ?? null;
  return requirementsLayer({ violations, violationRate: limit === null ? null : { rate: violationRate(candidateRecords).rate, limit } });
}

/** Every trial the candidate played: its screening run and its own confirmation runs (never the baseline's). */
export function candidateTrialsOf(
  screening: readonly CaseRecord[],
  confirmRuns: ReadonlyArray<{ readonly runId: string; readonly side: 'baseline' | 'candidate' }>,
  store: { records(runId: string): CaseRecord[] },
): CaseRecord[] {
  return [...screening, ...confirmRuns.filter((r) => r.side === 'candidate').flatMap((r) => store.records(r.runId))];
}

function notRunFlips(message: string): GateDecision {
  const decision = flipsOnly(notRunDecision('blueprint_check', message));
  return { ...decision, layers: decision.layers.map((l) => (l.layer === 'flips' ? { ...l, verdict: 'not_run' as const } : l)) };
}

/**
 * Adds the cost summary and the composite, and settles one tie: an RC that fixes and breaks
 * nothing, rejected only for want of fixes, is promoted on efficiency when the config allows it
 * and its per-case score (the composite, or lower trace cost) is significantly better.
 */
function withCostAndEfficiency(
  decision: GateDecision,
  config: Config,
  baseline: readonly CaseRecord[],
  candidate: readonly CaseRecord[],
  costs: { baseline: RunCosts; candidate: RunCosts } | null,
  weights: CostWeights,
): GateDecision {
  const weightsOfComposite = config.report.composite?.weights ?? null;
  const perCase = { baseline: caseSubScores(baseline, costs?.baseline.perCase ?? null), candidate: caseSubScores(candidate, costs?.candidate.perCase ?? null) };
  const compositeSummary = weightsOfComposite
    ? { weights: { ...weightsOfComposite }, baseline: composite(weightsOfComposite, runSubScores(perCase.baseline)), candidate: composite(weightsOfComposite, runSubScores(perCase.candidate)) }
    : null;
  const cost = costs ? { weights: { ...weights }, baseline: costs.baseline.mean, candidate: costs.candidate.mean } : null;

  const onlyWantsFixes = decision.verdict === 'reject' && decision.checks.filter((c) => !c.ok).every((c) => c.name === 'fixes' || c.name === 'hit_rate');
  const tie = decision.f2p.length === 0 && decision.p2f.length === 0 && onlyWantsFixes;
  if (!config.gate.allowEfficiencyReleases || !tie || !costs) return { ...decision, cost, composite: compositeSummary, efficiency: null };

  const measure = weightsOfComposite ? ('composite' as const) : ('cost' as const);
  const score = (side: 'baseline' | 'candidate') =>
    new Map(
      [...perCase[side]].map(([id, sub]) => [id, weightsOfComposite ? composite(weightsOfComposite, sub) : -(costs[side].perCase.get(id) ?? 0)]),
    );
  const test = pairedImprovement(score('baseline'), score('candidate'));
  const promoted = meets(test.pValue, config.gate.alpha);
  const check: GateCheck = {
    name: 'efficiency',
    ok: promoted,
    message: `efficiency release? ${test.better} of ${test.better + test.worse} cases ${measure === 'cost' ? 'cost less' : 'score higher on the composite'}: one-sided sign test p = ${test.pValue.toFixed(4)} (promoted on efficiency at p ≤ ${config.gate.alpha})`,
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

