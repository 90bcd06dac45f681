// What the gate decides on, gathered from the world (stages/gate/decide.ts decides): the
// release's screen (taken again beside the candidate under "flips"), the blueprint's own checks
// on the candidate's checkout, the candidate's task (loaded once here, and handed to its runs, the
// decision and the reports), the candidate's runs and the confirmation, the records and trace
// costs the layers read, and the requirements reviewer's verdicts when it is to be asked.
import path from 'node:path';
import type { Config } from '../../config/schema.ts';
import type { Ablation } from '../../domain/ablation.ts';
import type { Case } from '../../domain/case.ts';
import type { CaseRecord } from '../../domain/record.ts';
import type { Task } from '../../domain/task.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { candidateTrialsOf, costWeights, needsCosts, reviewerQuestion, type CandidateEvidence, type DecisionPolicy, type GateEvidence } from '../../stages/gate/decide.ts';
import type { Violation } from '../../stages/gate/layers.ts';
import { readTrace } from '../../stages/run/trace-file.ts';
import type { BaselineScreen, RunResult } from '../run/execute-run.ts';
import type { PipelineContext } from '../context.ts';
import type { GateSubject } from './gate-subject.ts';
import { evaluateCandidate, type CandidateEvaluation } from './evaluate-candidate.ts';
import { refuseUnknownMustPass, runCosts } from './layer-evidence.ts';
import { screenForVerdict } from './verdict-screen.ts';

export interface GatheredGate {
  /** The release's screen, its records pooled (null when the candidate was rejected before running: out of scope). */
  readonly screen: BaselineScreen | null;
  /** The release's first record: its ordinary run, which the layers and the reports read. */
  readonly baselineRun: RunResult | null;
  readonly evaluation: CandidateEvaluation | null;
  /** The candidate's task and train cases, loaded once (null when it was not screened). */
  readonly task: { readonly task: Task; readonly trainCases: readonly Case[] } | null;
  /** The runs' records, each read from the store once for this decision. */
  readonly records: RecordReader;
  readonly evidence: GateEvidence;
  readonly policy: DecisionPolicy;
}

export interface RecordReader {
  records(runId: string): CaseRecord[];
}

type ChecksConfig = Extract<Config['gate']['layers'][number], { layer: 'checks' }>;

function checksConfig(config: Config): ChecksConfig | null {
  return (config.gate.layers.find((l) => l.layer === 'checks') as ChecksConfig | undefined) ?? null;
}

/** The gate's layers as the config names them, with this decision's switches. */
export function decisionPolicy(config: Config, switches: { readonly approval: boolean; readonly ablation: Ablation | null }): DecisionPolicy {
  const checks = checksConfig(config);
  return {
    blueprint: config.blueprint,
    checks: checks ? { mustPass: checks.mustPass, maxTraceCost: checks.maxTraceCost ?? null } : null,
    requirements: config.gate.layers.some((l) => l.layer === 'requirements') ? { maxViolationRate: config.gate.maxViolationRate ?? null } : null,
    efficiency: { allowed: config.gate.allowEfficiencyReleases, alpha: config.gate.alpha },
    composite: config.report.composite?.weights ?? null,
    approval: switches.approval,
    ablation: switches.ablation,
  };
}

/** Gathers what the gate decides on, running what has to run: the screen, the checks, the candidate, the confirmation, the review. */
export async function gatherGateEvidence(context: PipelineContext, subject: GateSubject): Promise<GatheredGate> {
  const { config, store } = context.workspace;
  const policy = decisionPolicy(config, { approval: subject.record && config.gate.layers.some((l) => l.layer === 'approval'), ablation: subject.ablation ?? null });
  // Under "flips" a screen read from an earlier run is taken again beside the candidate (verdict-screen.ts).
  // The release's side runs from `measuredOn` when the candidate edits the task (the release on its task).
  const releaseCommit = subject.baseline.measuredOn ?? subject.baseline.commit;
  const screen = subject.outside.length > 0 ? null : await screenForVerdict(context, { ...subject.baseline, commit: releaseCommit });
  const baselineRun = screen?.records[0] ?? null;
  const records = recordsOnce(store);
  // The blueprint's own checks run first, on the candidate's checkout: a failing one vetoes
  // before any agent run is spent on the candidate.
  const checks = checksConfig(config);
  const blueprintChecks = baselineRun && checks ? await context.checks.run(checks.blueprintChecks, path.join(subject.candidate.dir, 'blueprints', config.blueprint), config.sandbox.memoryMb) : [];
  const loaded = baselineRun ? await context.workspace.files.tasks.loadTask(subject.candidate.dir, config.task) : null;
  const task = loaded ? { task: loaded, trainCases: await context.workspace.files.tasks.loadSplit(loaded, 'train') } : null;
  const evaluation =
    screen && task && blueprintChecks.every((c) => c.ok)
      ? await evaluateCandidate(context, { baseline: screen, baselineCommit: releaseCommit, candidate: { commit: subject.candidate.commit, dir: subject.candidate.dir }, label: subject.candidate.ref, intent: subject.intent, task: task.task })
      : null;
  if (task && checks) refuseUnknownMustPass(config, task.trainCases);
  const candidate = baselineRun && evaluation && task ? await candidateEvidence(context, policy, { baselineRun, evaluation, task, records }) : null;
  const unreviewed: GateEvidence = { outside: subject.outside, blueprintChecks, candidate, review: null };
  const question = reviewerQuestion(unreviewed, policy);
  const review = question && candidate && task ? { violations: await askReviewer(context, question.moved, candidate.records.candidate, task.task) } : null;
  return { screen, baselineRun, evaluation, task, records, evidence: { ...unreviewed, review }, policy };
}

/** The records and trace costs the layers read of the candidate's runs and the release's first record. */
async function candidateEvidence(
  context: PipelineContext,
  policy: DecisionPolicy,
  input: { readonly baselineRun: RunResult; readonly evaluation: CandidateEvaluation; readonly task: NonNullable<GatheredGate['task']>; readonly records: RecordReader },
): Promise<CandidateEvidence> {
  const { baselineRun, evaluation, task, records } = input;
  const baseline = records.records(baselineRun.runId);
  const candidate = records.records(evaluation.candidateRun.runId);
  const weights = costWeights(task.task.manifest.scorers);
  const { tracesRoot } = context.workspace;
  // Costs are read from the traces only when something uses them.
  const costs = needsCosts(policy) ? { weights, baseline: await runCosts(baseline, tracesRoot, weights), candidate: await runCosts(candidate, tracesRoot, weights) } : null;
  const candidateTrials = (policy.checks?.mustPass.length ?? 0) > 0 ? candidateTrialsOf(candidate, evaluation.confirmRuns, records) : [];
  return { decision: evaluation.decision, records: { baseline, candidate, candidateTrials }, costs, task: { requirements: task.task.requirements, trainCases: task.trainCases } };
}

/**
 * The requirements layer's review: the critic's model reads the candidate's traces of the cases
 * whose outcome moved against the rubric's requirements, blind to the blueprint.
 */
async function askReviewer(context: PipelineContext, moved: readonly string[], candidateRecords: readonly CaseRecord[], task: Task): Promise<Violation[]> {
  const asked = new Set(moved);
  const traces: Array<{ caseId: string; trace: TraceEvent[] }> = [];
  for (const record of candidateRecords) {
    if (!asked.has(record.caseId) || record.status !== 'ok' || traces.some((t) => t.caseId === record.caseId)) continue;
    traces.push({ caseId: record.caseId, trace: (await readTrace(context.workspace.tracesRoot, record.traceRef)) ?? [] });
  }
  if (task.requirements.length === 0) context.reporter.emit({ type: 'warning', message: 'gate layer "requirements": the rubric declares no requirements (a ```json requirements block), so there is nothing to review' });
  if (traces.length === 0 || task.requirements.length === 0) return [];
  const review = await context.model.reviewRequirements({
    model: context.workspace.config.models.critic,
    rubric: task.rubric,
    requirements: task.requirements.map((r) => ({ id: r.id, text: r.text, symptoms: r.symptoms })),
    cases: traces,
  });
  return review.value.violations;
}

/** A run's records read from the store at most once per decision. */
function recordsOnce(store: RecordReader): RecordReader {
  const read = new Map<string, CaseRecord[]>();
  return {
    records(runId) {
      const cached = read.get(runId) ?? store.records(runId);
      read.set(runId, cached);
      return cached;
    },
  };
}
