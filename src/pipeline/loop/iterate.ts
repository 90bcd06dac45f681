import { readTraceOrNote } from '../../stages/run/trace-file.ts';
import { synthesisEvidence } from './synthesis-evidence.ts';
import path from 'node:path';
import type { CreditDocument } from '../../domain/credit.ts';
import { gradientSummary } from '../../domain/gradient.ts';
import { recordCredit } from './credit.ts';
import { diagnosticsFolder } from '../../stages/release/artifacts.ts';
import { noCandidateEntry } from '../../stages/release/plan.ts';
import { synthesize, type SynthesisOutcome } from '../../stages/synthesize/synthesize.ts';
import { ABLATION_TEXT, type Ablation } from '../../domain/ablation.ts';
import type { BlueprintBrief, BlueprintFile, RcHistoryEntry, TaskBrief } from '../../domain/ports/model.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { scratchName } from '../workspace/scratch-line.ts';
import { buildCandidate, checkCandidateLoads, discardCandidate } from './candidate.ts';
import { pendingReleases, type PendingRelease } from '../workspace/approval.ts';
import { concludeCandidate } from '../gate/conclude.ts';
import { baselineRecordCount, recordBaseline, type BaselineScreen, type RunResult } from '../run/execute-run.ts';
import { withCheckout } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';
import { readRcHistory } from './rc-history.ts';
import { stopReason, type IterationKind, type IterationResult, type StopPolicy } from './stop.ts';
import { readTaskBrief } from './task-brief.ts';
import { recordGradient } from './gradient.ts';
import { candidateRef, currentRelease, nextIteration, tagName, type Release } from '../workspace/versions.ts';
import { lineTip, refuseShallowHistory } from '../workspace/workspace.ts';
import { labelAliasesAt } from '../workspace/label-aliases.ts';
import { adoptLabelMerges, readingThrough, type SynthesisView } from './label-merges.ts';
import { chargedTo } from '../run/usage-scope.ts';
import { diagnoseRelease, diagnosisNote, type Diagnosed } from './diagnosis-step.ts';

export interface IterationSummary extends IterationResult {
  readonly rc: string | null;
  readonly tag: string | null;
  readonly reasons: readonly string[];
  readonly targets: readonly string[];
  readonly diagnosisSource: 'generated' | 'builtin' | 'none';
  readonly ablation: Ablation | null;
  /** Model-phrased gradient claims dropped this iteration because their evidence did not resolve. */
  readonly gradientDropped?: number;
  /** Where the iteration's diagnosis report is; null when none was made (the no-diagnosis ablation). */
  readonly diagnosis: DiagnosisPointer | null;
}

/** Where to read an iteration's diagnosis report. */
export interface DiagnosisPointer {
  /** How it was made ("built-in diagnosis script used", …). */
  readonly note: string;
  /** report.json: a path in the workspace, committed at `ref`; or, when no decision committed it, in agentdevel's state folder. */
  readonly file: string;
  /** The git ref holding it (the release tag, or the RC's audit ref); null when it was not committed. */
  readonly ref: string | null;
}

export interface IterateOutcome {
  readonly iterations: IterationSummary[];
  readonly stopReason: string;
  readonly release: string;
  readonly simulated: boolean;
  readonly ablation: Ablation | null;
}

export interface IterateOptions {
  readonly maxIterations: number | null;
  /** An experiment's switch (paper Table 3); only on a scratch line. */
  readonly ablation?: Ablation | null;
}

/** An ablated iteration may never release on the real line: refused before anything runs. */
export function refuseAblationOnRealLine(config: PipelineContext['workspace']['config'], ablation: Ablation | null): void {
  if (ablation === null || scratchName(config) !== null) return;
  throw new AgentdevelError(
    'USAGE',
    `--ablate ${ablation}: refused on the real line (${config.line.branch}); ${ABLATION_TEXT[ablation]}, so it runs only on a scratch line`,
    { hint: `Name one: \`agentdevel iterate --ablate ${ablation} --line scratch\` (its releases go to agentdevel/scratch/scratch, never to ${config.line.branch}).` },
  );
}

/** What every iteration of one `iterate` shares: the context, the rules, and what happened so far. */
interface Loop {
  readonly context: PipelineContext;
  readonly ablation: Ablation | null;
  readonly stopPolicy: StopPolicy;
  readonly iterations: IterationSummary[];
  /** Whether any run so far was played by the mock engine. */
  simulated: boolean;
}

/** Where an iteration starts: its number, and the release (and the line's tip) it builds on. */
interface IterationStart {
  readonly iteration: number;
  /** The iteration's context: its store reads labels through the aliases in effect when it starts. */
  readonly context: PipelineContext;
  readonly tip: string;
  readonly release: Release;
}

/** The AgentDevel loop (Algorithm 1): the one place that knows the order of the stages. */
export async function iterate(parent: PipelineContext, options: IterateOptions): Promise<IterateOutcome> {
  const loop = await openLoop(parent, options);
  const { workspace } = loop.context;
  for (;;) {
    const tip = await lineTip(workspace);
    const release = await currentRelease(workspace.repo, workspace.config, tip);
    // A release waiting for a person's approval holds the line: nothing more is built on it until then.
    const waiting = await pendingReleases(workspace);
    if (waiting.length > 0) return ended(loop, awaitingApproval(waiting, tip), release.label);
    const iteration = await nextIteration(workspace.repo, workspace.config);
    // Every model call of this iteration is charged to it.
    // The vocabulary as it stood when this iteration started: aliases recorded later (a replay) are not in effect yet.
    const context = readingThrough(loop.context, await labelAliasesAt(workspace.repo, workspace.config, { iteration, stage: 'start' }));
    const outcome = await chargedTo({ iteration }, () => runIteration(loop, { iteration, context, tip, release }));
    if (outcome) return outcome;
  }
}

/** One iteration, step by step; the loop's outcome when it ends here, null when the next one starts. */
async function runIteration(loop: Loop, start: IterationStart): Promise<IterateOutcome | null> {
  const { ablation } = loop;
  const { context, iteration, tip, release } = start;
  const { workspace, reporter } = context;
  const studied = await studyRelease(loop, start);
  if (studied.stop) return ended(loop, studied.stop, release.label);

  reporter.emit({ type: 'stage', stage: 'diagnose', message: `iteration ${iteration}: diagnosing ${failingCases(studied.baseline)} failing cases` });
  const gradient = studied.gradient?.document ?? null;
  const diagnosis = await diagnoseRelease(context, { iteration, runId: studied.baseline.runId, history: studied.history, gradient, ablated: ablation === 'no-diagnosis' });
  // Synonyms the diagnostician merged read as one label from here on (the synthesizer's enum, the gate's hit rate).
  const view = await adoptLabelMerges(context, { iteration, proposals: diagnosis.labelMerges, report: diagnosis.report, vocabulary: diagnosis.vocabulary, screen: studied.screen, baselineRunId: studied.baseline.runId });
  const synthesis = await synthesizeCandidate(view.context, start, studied, view);
  // The iteration has an outcome now (an outage would have thrown): its gradient records and label merges go to git.
  await studied.gradient?.write();
  await view.record(tip);

  if (synthesis.kind === 'no_candidate') return recordNoCandidate(loop, start, studied, diagnosis, synthesis);
  try {
    return await gateIterationCandidate(loop, start, studied, diagnosis, view, synthesis);
  } finally {
    await discardCandidate(workspace, synthesis.built);
  }
}

/** Refuses what may not run (an ablation on the real line, a shallow clone) before anything does. */
async function openLoop(parent: PipelineContext, options: IterateOptions): Promise<Loop> {
  const ablation = options.ablation ?? null;
  refuseAblationOnRealLine(parent.workspace.config, ablation);
  await refuseShallowHistory(parent.workspace, 'iterate');
  // The critic's switch reaches the runs through the context; the other two act here and in the gate.
  const context: PipelineContext = ablation === 'critic-sees-blueprint' ? { ...parent, criticSeesBlueprint: true } : parent;
  const { config } = context.workspace;
  if (ablation) context.reporter.emit({ type: 'warning', message: `ablation ${ablation} on scratch line ${config.line.branch}: ${ABLATION_TEXT[ablation]}` });
  return { context, ablation, stopPolicy: { ...config.stop, maxIterations: options.maxIterations ?? config.stop.maxIterations }, iterations: [], simulated: false };
}

function ended(loop: Loop, stopReason: string, release: string): IterateOutcome {
  return { iterations: loop.iterations, stopReason, release, simulated: loop.simulated, ablation: loop.ablation };
}

/** What the current release is, read from one checkout of it. */
interface StudiedRelease {
  readonly screen: BaselineScreen;
  /** The release's first record: its ordinary run, what the diagnosis reads and the stop rules count. */
  readonly baseline: RunResult;
  readonly files: readonly BlueprintFile[];
  readonly brief: BlueprintBrief;
  readonly task: TaskBrief;
  /** Why the loop stops before this iteration builds anything; null to go on. */
  readonly stop: string | null;
  /** Earlier RCs, from git: what was tried, what it fixed and broke, and how the gate judged it (read once an iteration; empty when it stops). */
  readonly history: readonly RcHistoryEntry[];
  readonly credit: CreditDocument | null;
  readonly gradient: Awaited<ReturnType<typeof recordGradient>> | null;
}

/**
 * The baseline, the stop rules, the credit per component and the gradient records. One checkout
 * of the current release serves the baseline run, the synthesizer's view of the blueprint, the
 * credit and the gradient records (the task's requirements).
 */
async function studyRelease(loop: Loop, { context, iteration, tip, release }: IterationStart): Promise<StudiedRelease> {
  const { workspace, reporter } = context;
  const { config } = workspace;
  reporter.emit({ type: 'stage', stage: 'run', message: `iteration ${iteration}: running ${release.label} on the train split` });
  const studied = await withCheckout(workspace, tip, async (source): Promise<StudiedRelease> => {
    const screen = await recordBaseline(context, source, release.label, baselineRecordCount(config));
    const files = await workspace.files.blueprints.readFiles(source.dir, config.blueprint);
    const baseline = screen.records[0] as RunResult;
    const stop = stopReason(loop.iterations, loop.stopPolicy, failingCases(baseline));
    const history = stop ? [] : await readRcHistory(workspace);
    // Credit per component, read from the release's ordinary run (and the judge, when on); the
    // judge's verdicts also decide which components the gradient records say contributed.
    const credited = stop ? null : await recordCredit(context, { iteration, run: baseline, files, history });
    return {
      screen,
      baseline,
      files,
      brief: await workspace.files.blueprints.readBrief(source.dir, config.blueprint),
      task: await readTaskBrief(workspace, source.dir),
      stop,
      history,
      gradient: stop
        ? null
        : await recordGradient(context, { iteration, release: release.label, releaseCommit: tip, runId: baseline.runId, files, checkout: source.dir, helpful: credited?.helpful ?? null }),
      credit: credited?.document ?? null,
    };
  });
  if (studied.credit) reporter.emit({ type: 'stage', stage: 'credit', message: creditLine(iteration, studied.credit) });
  loop.simulated ||= studied.baseline.simulated;
  return studied;
}

type BuiltCandidate = Awaited<ReturnType<typeof buildCandidate>>;

/** Asks the synthesizer for one release candidate, built on the release and checked to load. */
async function synthesizeCandidate(context: PipelineContext, { iteration, tip }: IterationStart, studied: StudiedRelease, view: SynthesisView): Promise<SynthesisOutcome<BuiltCandidate>> {
  const { workspace, reporter } = context;
  const { config, store } = workspace;
  const gradient = studied.gradient?.document ?? null;
  reporter.emit({ type: 'stage', stage: 'synthesize', message: `iteration ${iteration}: synthesizing one release candidate` });
  // The synthesizer sees the failures the diagnosis describes, as they happened (train cases only).
  const trainCases = await workspace.files.tasks.loadSplit(await workspace.files.tasks.loadTask(workspace.root, config.task), 'train');
  const evidence = await synthesisEvidence(view.report, store.records(studied.baseline.runId), trainCases, (record) => readTraceOrNote(workspace.tracesRoot, record.traceRef, []), config.evidence, gradient);
  return synthesize(
    { blueprint: config.blueprint, files: studied.files, brief: studied.brief, diagnosis: view.report, evidence, history: studied.history, taxonomy: view.vocabulary, task: studied.task, model: config.models.synthesizer, maxRepairs: config.repairs.synthesis, gradient },
    {
      model: context.model,
      reporter,
      validate: async (candidate) => {
        const built = await buildCandidate(workspace, tip, iteration, candidate);
        return { built, problem: await checkCandidateLoads(workspace, built) };
      },
    },
  );
}

/** The synthesizer had nothing valid: the iteration is recorded as such, and the loop stops. */
async function recordNoCandidate(
  loop: Loop,
  { context, iteration, release }: IterationStart,
  studied: StudiedRelease,
  diagnosis: Diagnosed,
  synthesis: Extract<SynthesisOutcome<BuiltCandidate>, { kind: 'no_candidate' }>,
): Promise<IterateOutcome> {
  const { ablation } = loop;
  const { workspace, reporter } = context;
  if (synthesis.built) await discardCandidate(workspace, synthesis.built);
  reporter.emit({ type: 'stage', stage: 'synthesize', message: `iteration ${iteration}: ${synthesis.reason}` });
  workspace.store.saveDecision(
    noCandidateEntry({
      blueprint: workspace.config.blueprint,
      iteration,
      baselineRun: studied.baseline.runId,
      reasons: [synthesis.reason, ...synthesis.attempts, diagnosisNote(diagnosis), ...(ablation ? [`ablation ${ablation}: ${ABLATION_TEXT[ablation]}`] : [])],
    }),
  );
  loop.iterations.push(
    iterationSummary(loop, studied, diagnosis, {
      iteration,
      kind: 'no_candidate',
      f2p: [],
      p2f: [],
      p2fRate: 0,
      rc: null,
      tag: null,
      reasons: [synthesis.reason, diagnosisNote(diagnosis)],
      targets: [],
      // Nothing was committed: the report stays in the iteration's work folder.
      report: diagnosis.source === 'none' ? null : { file: path.relative(workspace.root, diagnosis.reportFile), ref: null },
    }),
  );
  return ended(loop, stopReason(loop.iterations, loop.stopPolicy, failingCases(studied.baseline)) ?? synthesis.reason, release.label);
}

/** Gates the candidate (pipeline/gate) and records what it decided; the loop's outcome when it stops here. */
async function gateIterationCandidate(
  loop: Loop,
  { iteration, tip, release }: IterationStart,
  studied: StudiedRelease,
  diagnosis: Diagnosed,
  view: SynthesisView<PipelineContext>,
  synthesis: Extract<SynthesisOutcome<BuiltCandidate>, { kind: 'candidate' }>,
): Promise<IterateOutcome | null> {
  const { ablation } = loop;
  // From synthesis on, the store reads labels through this iteration's merges too.
  const { context } = view;
  const { workspace, reporter } = context;
  const { config } = workspace;
  const candidate = synthesis.built;
  reporter.emit({ type: 'stage', stage: 'gate', message: `iteration ${iteration}: running the RC (${synthesis.candidate.intent.targets.join(', ')})` });
  const conclusion = await concludeCandidate(context, {
    iteration,
    record: true,
    candidate: { ref: candidateRef(config, iteration), commit: candidate.commit, dir: candidate.dir },
    baseline: { commit: tip, label: release.label, screen: view.screen },
    nextRelease: tagName(config, release.version + 1),
    intent: synthesis.candidate.intent,
    fingerprint: synthesis.fingerprint,
    diagnosis: diagnosis.source === 'none' ? null : { ...diagnosis, synthesisAttempts: synthesis.attempts, labelMerges: view.adopted },
    credit: studied.credit,
    gradient: studied.gradient ? gradientSummary(studied.gradient.document, studied.gradient.ref) : null,
    ablation,
    edits: await workspace.repo.changedPaths(tip, candidate.commit),
    outside: [],
    changeBase: tip,
    reportDir: null,
  });
  const { decision } = conclusion;
  const kind = conclusion.outcome === 'promoted' || conclusion.outcome === 'pending' ? conclusion.outcome : 'rejected';
  loop.simulated ||= conclusion.simulated;
  const said = { promoted: `promoted ${conclusion.tag}`, pending: 'accepted, awaiting approval', rejected: 'rejected' }[kind];
  reporter.emit({ type: 'stage', stage: 'gate', message: `iteration ${iteration}: ${said}: ${decision.f2p.length} F→P, ${decision.p2f.length} P→F` });
  loop.iterations.push(
    iterationSummary(loop, studied, diagnosis, {
      iteration,
      kind,
      f2p: decision.f2p,
      p2f: decision.p2f,
      p2fRate: decision.rates.p2fRate,
      rc: candidateRef(config, iteration),
      tag: conclusion.tag,
      reasons: decision.reasons,
      targets: synthesis.candidate.intent.targets,
      // Committed with the decision: in the release (and on the line), or on the RC's audit ref.
      report: diagnosis.source === 'none' ? null : { file: `${diagnosticsFolder(config.blueprint, iteration)}/report.json`, ref: conclusion.tag ?? conclusion.auditRef },
    }),
  );
  if (kind === 'pending') return ended(loop, awaitingApproval(await pendingReleases(workspace), tip), release.label);
  const after = kind === 'promoted' && conclusion.evaluation ? conclusion.evaluation.candidateRun : studied.baseline;
  const stop = stopReason(loop.iterations, loop.stopPolicy, failingCases(after));
  if (!stop) return null;
  const final = await currentRelease(workspace.repo, config, await lineTip(workspace));
  return ended(loop, stop, final.label);
}

/** An iteration's summary: what it decided, with how it was diagnosed and where that report is (null: no report was made). */
function iterationSummary(
  loop: Loop,
  studied: StudiedRelease,
  diagnosis: Diagnosed,
  decided: IterationResult & Pick<IterationSummary, 'rc' | 'tag' | 'reasons' | 'targets'> & { readonly kind: IterationKind; readonly report: Omit<DiagnosisPointer, 'note'> | null },
): IterationSummary {
  const { report, ...result } = decided;
  return {
    ...result,
    diagnosisSource: diagnosis.source,
    ablation: loop.ablation,
    gradientDropped: studied.gradient?.document.dropped.count ?? 0,
    diagnosis: report === null ? null : { note: diagnosisNote(diagnosis), ...report },
  };
}

/** Cases with at least one failing graded trial. */
function failingCases(run: RunResult): number {
  let failing = 0;
  for (const c of run.cases.values()) if (c.passes < c.graded) failing += 1;
  return failing;
}

/** One progress line: the components credited, and the free riders when the judge found any. */
function creditLine(iteration: number, credit: CreditDocument): string {
  const riders = credit.components.filter((c) => c.freeRider).map((c) => c.name);
  const judged = credit.judge.enabled ? `${credit.judge.calls} judge calls` : 'judge off (credit.helpfulness)';
  return `iteration ${iteration}: credit for ${credit.components.length} components (${judged})${riders.length > 0 ? `; free riders: ${riders.join(', ')}` : ''}`;
}

/**
 * What holds the line: each pending release, and what to do with it. One gated on an earlier
 * release (the line moved since: another pending one was approved, or a collaborator's was
 * synced) can no longer be approved; it is cleared by declining it.
 */
function awaitingApproval(waiting: readonly PendingRelease[], tip: string): string {
  return waiting
    .map(({ iteration, document }) => {
      const name = `the release candidate of iteration ${iteration}${document.release ? ` (${document.release})` : ''}`;
      if (document.baseline.commit !== tip) {
        return `${name} is stale: it was gated on ${document.baseline.commit.slice(0, 10)}, and the line has moved to ${tip.slice(0, 10)} since, so it can no longer be approved; clear it with \`agentdevel decline ${iteration} --reason superseded\``;
      }
      return `${name} awaits approval: \`agentdevel approve ${iteration}\` or \`agentdevel decline ${iteration} --reason …\``;
    })
    .join('; ');
}

