import path from 'node:path';
import type { GateDecision } from '../../domain/decision.ts';
import { ABLATION_TEXT, type Ablation } from '../../domain/ablation.ts';
import type { Role } from '../../domain/ports/model.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { HumanChange } from '../../domain/human-change.ts';
import type { ChangedPath } from '../../adapters/git/git.ts';
import { scopeRejection } from '../../stages/gate/gate.ts';
import { flipsOnly } from '../../stages/gate/layers.ts';
import type { DiagnosisEvidence, ReleaseEvidence } from '../../stages/release/artifacts.ts';
import { evaluateCandidate, type CandidateEvaluation } from './evaluate-candidate.ts';
import type { CaseRecord } from '../../domain/record.ts';
import { recordBaseline, screenSourceText, type BaselineScreen, type RunContext, type RunResult } from '../run/execute-run.ts';
import { screenForVerdict } from './verdict-screen.ts';
import type { Config } from '../../config/schema.ts';
import { checksConfig, decideLayers } from './decide-layers.ts';
import { holdForApproval, promote, recordRejection, writeReports } from './release.ts';
import { gatherCaseEvidence } from './case-evidence.ts';
import type { CaseEvidenceDocument } from '../../domain/case-evidence.ts';
import type { CreditDocument } from '../../domain/credit.ts';
import type { GradientSummary } from '../../domain/gradient.ts';
import { loadSplit, loadTask } from '../../adapters/task/load.ts';
import { recordedRuns, taxonomyDocument } from './decision-record.ts';
import { attributeRegressions } from './regression-attribution.ts';
import { blueprintRoot, readManifest } from '../../adapters/blueprint/load.ts';

/** A release candidate on its way through the gate, from `iterate` or from `gate --candidate`. */
export interface GateSubject {
  readonly iteration: number;
  /** Record the decision in git (promotion, or the rejection on its audit ref); false for a dry gate. */
  readonly record: boolean;
  /** A checkout of the candidate; the release artifacts are committed there when recording. */
  readonly candidate: { readonly ref: string; readonly commit: string; readonly dir: string };
  /**
   * The current release and its screen, its records pooled (null when the candidate is rejected
   * before running). `measuredOn`: the commit the release's side runs from when it is not the
   * release itself (a person's change to the task: the release's blueprint on the candidate's task).
   */
  readonly baseline: { readonly commit: string; readonly label: string; readonly screen: BaselineScreen | null; readonly measuredOn?: string | null };
  /**
   * The line's tip, which a promotion moves from: the baseline's commit, except for a change
   * merged into the line before its gate (`gate --baseline`), which is the tip itself.
   */
  readonly lineTip?: string;
  /** The tag the candidate becomes if it is promoted. */
  readonly nextRelease: string;
  readonly intent: ChangeIntent | null;
  readonly fingerprint: string | null;
  readonly diagnosis: DiagnosisEvidence | null;
  /** The model roles that wrote the candidate (default: the diagnostician and the synthesizer for a loop candidate, none for a hand-made one). */
  readonly authors?: readonly Role[];
  /** The iteration's credit per component (loop candidates only). */
  readonly credit?: CreditDocument | null;
  /** The iteration's gradient records, as the reports summarize them (loop candidates only). */
  readonly gradient?: GradientSummary | null;
  /** The experiment's switch this decision ran under (iterate --ablate, scratch lines only); null otherwise. */
  readonly ablation?: Ablation | null;
  readonly edits: readonly ChangedPath[];
  /** Edited paths outside the blueprint folder (an RC a model wrote), or links leading out of it: the candidate is rejected without running. */
  readonly outside: readonly string[];
  /** What a person's change touches beyond the blueprint, and how the gate treated it (null: the blueprint alone, or a model's RC). */
  readonly change?: HumanChange | null;
  /** The commit the candidate's edits are measured from (the release, or a hand-made branch's fork point): the report's diff. */
  readonly changeBase: string;
  /** Where a dry gate (record: false) writes its reports; null writes none. */
  readonly reportDir: string | null;
}

export interface GateConclusion {
  readonly decision: GateDecision;
  readonly evaluation: CandidateEvaluation | null;
  /** promoted / pending (awaiting approval) / rejected when recorded; accepted / rejected for a dry gate. */
  readonly outcome: 'promoted' | 'pending' | 'rejected' | 'accepted';
  readonly tag: string | null;
  readonly auditRef: string | null;
  readonly simulated: boolean;
  readonly mockRoles: readonly Role[];
  /** Everything the decision rests on, as the reports show it. */
  readonly evidence: ReleaseEvidence;
  /** The files a dry gate wrote to its report folder (absolute paths). */
  readonly reportFiles: readonly string[];
}

/** Roles that write candidates rather than run or grade them. */
const AUTHOR_ROLES: readonly Role[] = ['diagnostician', 'synthesizer', 'writer'];

/**
 * The one tail every candidate goes through: evaluate (or reject on scope), decide, then promote
 * or record the rejection, then index the decision. `iterate` and `gate` differ only in the
 * subject they hand in.
 */
export async function concludeCandidate(context: RunContext, subject: GateSubject): Promise<GateConclusion> {
  const { config, store } = context.workspace;
  // Under "flips" a screen read from an earlier run is taken again beside the candidate (verdict-screen.ts).
  // The release's side runs from `measuredOn` when the candidate edits the task (the release on its task).
  const screen = subject.outside.length > 0 ? null : await screenForVerdict(context, { ...subject.baseline, commit: subject.baseline.measuredOn ?? subject.baseline.commit });
  // The release's first record is its ordinary run: the layers and the reports read its records.
  const baselineRun = screen?.records[0] ?? null;
  // The layers and the reports read the same runs' records: from the store once.
  const records = recordsOnce(store);
  // The blueprint's own checks run first, on the candidate's checkout: a failing one vetoes
  // before any agent run is spent on the candidate.
  const blueprintChecks =
    baselineRun && checksConfig(config) ? await context.checks.run(checksConfig(config)?.blueprintChecks ?? [], path.join(subject.candidate.dir, 'blueprints', config.blueprint), config.sandbox.memoryMb) : [];
  const evaluation =
    screen && blueprintChecks.every((c) => c.ok)
      ? await evaluateCandidate(context, {
          baseline: screen,
          baselineCommit: subject.baseline.measuredOn ?? subject.baseline.commit,
          candidate: { commit: subject.candidate.commit, dir: subject.candidate.dir },
          label: subject.candidate.ref,
          intent: subject.intent,
        })
      : null;
  const approval = subject.record && config.gate.layers.some((l) => l.layer === 'approval');
  const gated = baselineRun
    ? await decideLayers({
        config,
        tracesRoot: context.workspace.tracesRoot,
        reporter: context.reporter,
        candidateDir: subject.candidate.dir,
        baselineRun,
        evaluation,
        blueprintChecks,
        approval,
        model: context.model,
        store: records,
      })
    : flipsOnly(scopeRejection(subject.outside, config.blueprint));
  const ablation = subject.ablation ?? null;
  // no-gate: every valid RC (in scope, its checks passed, run) is promoted; what the gate would
  // have said stays in the decision, with its flips.
  const decision = ablation === 'no-gate' && evaluation ? ungated(gated) : ablation ? { ...gated, reasons: [...gated.reasons, `ablation ${ablation}: ${ABLATION_TEXT[ablation]}`] } : gated;
  for (const warning of decision.warnings) context.reporter.emit({ type: 'warning', message: warning });
  if (decision.verdict === 'undecided') {
    throw new AgentdevelError('GATE_UNDECIDED', `${subject.candidate.ref}: the gate cannot decide: ${decision.reasons.join('; ')}`);
  }
  const accepted = decision.verdict === 'accept';
  const simulated = (baselineRun?.simulated ?? false) || (evaluation?.candidateRun.simulated ?? false);
  const recordedOutcome = accepted ? (approval ? 'pending' : 'promoted') : 'rejected';
  // The roles that wrote the candidate take part only in it: the diagnostician and the synthesizer
  // in candidates the loop made (those have a fingerprint), the member writer in discover's.
  const authors: readonly Role[] = subject.authors ?? (subject.fingerprint !== null ? ['diagnostician', 'synthesizer'] : []);
  const mockRoles = (evaluation?.candidateRun.mockRoles ?? baselineRun?.mockRoles ?? []).filter((role) => !AUTHOR_ROLES.includes(role) || authors.includes(role));
  // A recorded rejection with regressions: which edit each depends on (attribution.onRejection), for the synthesizer's next request.
  const attribution = subject.record && !accepted && evaluation ? await attributeRegressions(context, { ...subject.candidate, changeBase: subject.changeBase, edits: subject.edits }, decision.p2f) : null;
  let recorded: { commit: string; tag: string | null; auditRef: string } | null = null;
  // A promoted release is screened now, while its checkout is here: its first record is the
  // candidate's run (reused), the others are written to git with this decision, so every later
  // gate against it (a CI checkout included) reuses the whole screen instead of taking it again.
  const releaseScreen =
    subject.record && recordedOutcome === 'promoted' && evaluation && screen
      ? await recordBaseline(context, { commit: subject.candidate.commit, dir: subject.candidate.dir }, subject.nextRelease, screen.records.length)
      : null;
  const evidence: ReleaseEvidence = {
    iteration: subject.iteration,
    blueprint: config.blueprint,
    outcome: subject.record ? recordedOutcome : accepted ? 'accepted' : 'rejected',
    release: accepted && subject.record ? subject.nextRelease : null,
    candidate: {
      ref: subject.candidate.ref,
      commit: subject.candidate.commit,
      // Recorded so that `approve` promotes exactly what was gated (the commit, its tree, its parent).
      tree: await context.workspace.repo.treeOf(subject.candidate.commit),
      parent: (await context.workspace.repo.parents(subject.candidate.commit))[0] ?? null,
    },
    baseline: {
      commit: subject.baseline.commit,
      label: subject.baseline.label,
      runId: baselineRun?.runId ?? '(not run)',
      recordRunIds: evaluation ? (screen?.records.map((r) => r.runId) ?? []) : [],
    },
    candidateRunId: evaluation?.candidateRun.runId ?? '(not run)',
    confirmationRunIds: evaluation?.confirmRuns.map((r) => r.runId) ?? [],
    fingerprint: subject.fingerprint,
    decision,
    intent: subject.intent,
    baselineCases: evaluation?.baselineCases ?? new Map(),
    candidateCases: evaluation?.candidateCases ?? new Map(),
    edits: subject.edits,
    cases: baselineRun && evaluation ? await caseEvidence(context, subject, baselineRun, evaluation, records) : null,
    diagnosis: subject.diagnosis,
    credit: subject.credit ?? null,
    gradient: subject.gradient ?? null,
    ablation,
    attribution,
    simulated,
    mockRoles,
    // The agent's model is what ran: a command agent is its own program, whatever models.agent says.
    models: { ...modelsAsked(config), ...((await readManifest(subject.candidate.dir, blueprintRoot(subject.candidate.dir, config.blueprint)).catch(manifestUnreadable))?.runtime === 'command' ? { agent: 'command' } : {}) },
    cost: subject.record ? store.costOfIteration(subject.iteration) : null,
    screenText: screen && evaluation ? screenSourceText(screen, subject.baseline.label) : null,
    change: subject.change ?? null,
    // The release's first record and the candidate's run keep their traces: one of them is the
    // run the next iteration's diagnosis reads (the candidate's, once promoted).
    record: subject.record
      ? {
          runs: await recordedRuns(context.workspace, [
            ...(evaluation ? (screen?.records ?? []).map((r, index) => ({ runId: r.runId, traces: index === 0 })) : []),
            ...(evaluation ? [{ runId: evaluation.candidateRun.runId, traces: true }] : []),
            ...(evaluation?.confirmRuns ?? []).map((r) => ({ runId: r.runId, traces: false })),
            ...(releaseScreen?.records ?? []).map((r) => ({ runId: r.runId, traces: false })),
          ]),
          taxonomy: taxonomyDocument(store),
        }
      : null,
  };
  if (subject.record) {
    const record = { promoted: promote, pending: holdForApproval, rejected: recordRejection }[recordedOutcome];
    recorded = await record(context.workspace, subject.candidate.dir, subject.lineTip ?? subject.baseline.commit, evidence, { textDiff: context.textDiff });
  }
  const reportFiles = !subject.record && subject.reportDir ? await writeReports(subject.reportDir, evidence, { textDiff: context.textDiff }) : [];
  const outcome = subject.record ? recordedOutcome : accepted ? 'accepted' : 'rejected';
  store.saveDecision({
    blueprint: config.blueprint,
    iteration: subject.record ? subject.iteration : null,
    candidateRef: subject.candidate.ref,
    candidateCommit: subject.candidate.commit,
    baselineRun: baselineRun?.runId ?? null,
    candidateRun: evaluation?.candidateRun.runId ?? null,
    outcome,
    reasons: decision.reasons,
    intent: subject.intent,
    tag: recorded?.tag ?? null,
    auditRef: recorded?.auditRef ?? null,
    // The very commit written to git: `approve` trusts a pending release only when it is this one.
    recordedCommit: recorded?.commit ?? null,
    f2p: decision.f2p,
    p2f: decision.p2f,
  });
  return { decision, evaluation, outcome, tag: recorded?.tag ?? null, auditRef: recorded?.auditRef ?? null, simulated, mockRoles, evidence, reportFiles };
}

/** The no-gate ablation's decision: accepted, with the gate's own verdict and reasons kept beside it. */
function ungated(decision: GateDecision): GateDecision {
  return {
    ...decision,
    verdict: 'accept',
    reasons: [`ablation no-gate: promoted whatever the gate said; the gate said ${decision.verdict}${decision.reasons.length ? `: ${decision.reasons.join('; ')}` : ''}`],
  };
}

/** The named cases side by side, the run statistics and the blueprint diff, for the reports. */
async function caseEvidence(
  context: RunContext,
  subject: GateSubject,
  baselineRun: RunResult,
  evaluation: CandidateEvaluation,
  store: RecordReader,
): Promise<CaseEvidenceDocument> {
  const { config, repo, tracesRoot } = context.workspace;
  const task = await loadTask(subject.candidate.dir, config.task);
  return gatherCaseEvidence({
    decision: evaluation.decision,
    cases: await loadSplit(task, 'train'),
    gradingPaths: task.gradingPaths,
    baselineRecords: store.records(baselineRun.runId),
    candidateRecords: store.records(evaluation.candidateRun.runId),
    runs: {
      baseline: { ...evaluation.baseline, runId: baselineRun.runId },
      candidate: { ...evaluation.candidate, runId: evaluation.candidateRun.runId },
    },
    tracesRoot,
    diff: await repo.diff(subject.changeBase, subject.candidate.commit, [`blueprints/${config.blueprint}`]),
  });
}

interface RecordReader {
  records(runId: string): CaseRecord[];
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

/** A candidate whose blueprint.json does not load was rejected for it already: its runtime is then unknown (null). */
function manifestUnreadable(error: unknown): null {
  if (error instanceof AgentdevelError && error.code === 'BLUEPRINT_INVALID') return null;
  throw error;
}

/** The models of the roles this workspace asks: the judge only when credit.helpfulness is on; the writer only in discover. */
function modelsAsked(config: Config): Record<string, string> {
  const { judge, writer: _writer, ...asked } = config.models;
  return config.credit.helpfulness ? { ...asked, judge } : asked;
}
