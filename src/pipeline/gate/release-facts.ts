// What a decision's record rests on besides the decision, gathered from the world for the release
// plan (stages/release/plan.ts): the attribution of a recorded rejection's regressions, the screen
// of a promoted release, the candidate's tree and parent, the named cases side by side with their
// traces, the models that ran, the iteration's cost, the runs a clone rebuilds its store from, and
// where the decision is written (the refs of its iteration, the line's history for a promotion).
import type { CaseEvidenceDocument } from '../../domain/case-evidence.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { Role } from '../../domain/ports/model.ts';
import type { Config } from '../../config/schema.ts';
import { releaseOutcome, type ReleaseDecision, type ReleaseFacts, type ReleaseTarget } from '../../stages/release/plan.ts';
import { recordBaseline, screenSourceText } from '../run/execute-run.ts';
import type { PipelineContext } from '../context.ts';
import { readLineHistory } from '../workspace/line-history.ts';
import { auditRef, pendingRef } from '../workspace/versions.ts';
import { lineRef, type Workspace } from '../workspace/workspace.ts';
import { gatherCaseEvidence } from './case-evidence.ts';
import type { GateSubject } from './gate-subject.ts';
import { recordedRuns, taxonomyDocument } from './decision-record.ts';
import type { GatheredGate } from './gate-evidence.ts';
import { attributeRegressions } from './regression-attribution.ts';

/** Roles that write candidates rather than run or grade them. */
const AUTHOR_ROLES: readonly Role[] = ['diagnostician', 'synthesizer', 'writer'];

export async function gatherReleaseFacts(context: PipelineContext, subject: GateSubject, gathered: GatheredGate, decision: ReleaseDecision): Promise<ReleaseFacts> {
  const { config, store, repo } = context.workspace;
  const { screen, baselineRun, evaluation } = gathered;
  const outcome = releaseOutcome(decision);
  // The roles that wrote the candidate take part only in it: the diagnostician and the synthesizer
  // in candidates the loop made (those have a fingerprint), the member writer in discover's.
  const authors: readonly Role[] = subject.authors ?? (subject.fingerprint !== null ? ['diagnostician', 'synthesizer'] : []);
  const mockRoles = (evaluation?.candidateRun.mockRoles ?? baselineRun?.mockRoles ?? []).filter((role) => !AUTHOR_ROLES.includes(role) || authors.includes(role));
  // A recorded rejection with regressions: which edit each depends on (attribution.onRejection), for the synthesizer's next request.
  const attribution = subject.record && outcome === 'rejected' && evaluation ? await attributeRegressions(context, { ...subject.candidate, changeBase: subject.changeBase, edits: subject.edits }, decision.gate.p2f) : null;
  // A promoted release is screened now, while its checkout is here: its first record is the
  // candidate's run (reused), the others are written to git with this decision, so every later
  // gate against it (a CI checkout included) reuses the whole screen instead of taking it again.
  const releaseScreen =
    outcome === 'promoted' && evaluation && screen ? await recordBaseline(context, { commit: subject.candidate.commit, dir: subject.candidate.dir }, subject.nextRelease, screen.records.length) : null;
  return {
    iteration: subject.iteration,
    blueprint: config.blueprint,
    candidate: {
      ref: subject.candidate.ref,
      commit: subject.candidate.commit,
      // Recorded so that `approve` promotes exactly what was gated (the commit, its tree, its parent).
      tree: await repo.treeOf(subject.candidate.commit),
      parent: (await repo.parents(subject.candidate.commit))[0] ?? null,
    },
    baseline: {
      commit: subject.baseline.commit,
      label: subject.baseline.label,
      runId: baselineRun?.runId ?? null,
      recordRunIds: evaluation ? (screen?.records.map((r) => r.runId) ?? []) : [],
    },
    candidateRunId: evaluation?.candidateRun.runId ?? null,
    confirmationRunIds: evaluation?.confirmRuns.map((r) => r.runId) ?? [],
    fingerprint: subject.fingerprint,
    intent: subject.intent,
    baselineCases: evaluation?.baselineCases ?? new Map(),
    candidateCases: evaluation?.candidateCases ?? new Map(),
    edits: subject.edits,
    cases: await caseEvidence(context, subject, gathered),
    diagnosis: subject.diagnosis,
    credit: subject.credit ?? null,
    gradient: subject.gradient ?? null,
    ablation: subject.ablation ?? null,
    attribution,
    simulated: (baselineRun?.simulated ?? false) || (evaluation?.candidateRun.simulated ?? false),
    mockRoles,
    // The agent's model is what ran: a command agent is its own program, whatever models.agent says.
    models: { ...modelsAsked(config), ...((await context.workspace.files.blueprints.readManifest(subject.candidate.dir, config.blueprint).catch(manifestUnreadable))?.runtime === 'command' ? { agent: 'command' } : {}) },
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
    target: await releaseTarget(context.workspace, {
      candidateDir: subject.candidate.dir,
      candidateCommit: subject.candidate.commit,
      lineTip: subject.lineTip ?? subject.baseline.commit,
      iteration: subject.iteration,
      promoted: outcome === 'promoted',
      reportDir: subject.reportDir,
    }),
  };
}

/**
 * Where a decision of this iteration is written: the candidate's checkout, the line and the refs;
 * for a promotion also the line's earlier releases (its index and CHANGELOG.md are rewritten with
 * every release, from what they recorded) and the candidate's date (a rebuild from git gives the
 * same bytes).
 */
export async function releaseTarget(
  workspace: Workspace,
  input: { readonly candidateDir: string; readonly candidateCommit: string; readonly lineTip: string; readonly iteration: number; readonly promoted: boolean; readonly reportDir: string | null },
): Promise<ReleaseTarget> {
  const { repo, config } = workspace;
  return {
    candidateDir: input.candidateDir,
    lineTip: input.lineTip,
    refs: { line: lineRef(config), lineBranch: config.line.branch, audit: auditRef(config, input.iteration), pending: pendingRef(config, input.iteration) },
    history: input.promoted ? { ...(await readLineHistory(repo, config)), candidateDate: (await repo.commitDate(input.candidateCommit))?.slice(0, 10) ?? null } : null,
    reportDir: input.reportDir,
  };
}

/** The named cases side by side, the run statistics and the blueprint diff, for the reports (null when nothing ran). */
async function caseEvidence(context: PipelineContext, subject: GateSubject, gathered: GatheredGate): Promise<CaseEvidenceDocument | null> {
  const { baselineRun, evaluation, task, records } = gathered;
  if (!baselineRun || !evaluation || !task) return null;
  const { config, repo, tracesRoot } = context.workspace;
  return gatherCaseEvidence({
    decision: evaluation.decision,
    cases: task.trainCases,
    gradingPaths: task.task.gradingPaths,
    baselineRecords: records.records(baselineRun.runId),
    candidateRecords: records.records(evaluation.candidateRun.runId),
    runs: {
      baseline: { ...evaluation.baseline, runId: baselineRun.runId },
      candidate: { ...evaluation.candidate, runId: evaluation.candidateRun.runId },
    },
    tracesRoot,
    diff: await repo.diff(subject.changeBase, subject.candidate.commit, [`blueprints/${config.blueprint}`]),
    // The same counts as the decision's screening and report.md's tables: every baseline record.
    screenCounts: { baseline: evaluation.baselineCases, candidate: evaluation.candidateCases },
  });
}

/** A candidate whose blueprint.json does not load was rejected for it already: its runtime is then unknown (null). */
function manifestUnreadable(error: unknown): null {
  if (error instanceof AgentdevelError && error.code === 'BLUEPRINT_INVALID') return null;
  throw error;
}

/** The models of the roles this workspace asks: the judge only when credit.helpfulness is on; the writer only in discover. */
function modelsAsked(config: Config): Record<string, string> {
  // The endpoints say where a role's calls go, not which model it is.
  const { judge, writer: _writer, endpoints: _endpoints, ...asked } = config.models;
  return config.credit.helpfulness ? { ...asked, judge } : asked;
}
