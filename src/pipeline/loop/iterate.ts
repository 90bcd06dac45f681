import { readTraceOrNote } from '../../stages/run/trace-file.ts';
import { synthesisEvidence } from './synthesis-evidence.ts';
import path from 'node:path';
import type { CaseRecord } from '../../domain/record.ts';
import { zeroUsage, type SymptomEntry } from '../../domain/ports/model.ts';
import type { CreditDocument } from '../../domain/credit.ts';
import { gradientSummary } from '../../domain/gradient.ts';
import { recordCredit } from './credit.ts';
import { diagnose, type DiagnoseResult } from '../../stages/diagnose/diagnose.ts';
import { diagnosticsFolder } from '../../stages/release/artifacts.ts';
import { noCandidateEntry } from '../../stages/release/plan.ts';
import { synthesize } from '../../stages/synthesize/synthesize.ts';
import { rawRecordsReport } from '../../stages/diagnose/raw-records.ts';
import { symptomVocabulary } from '../../domain/symptoms.ts';
import { ABLATION_TEXT, type Ablation } from '../../domain/ablation.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { scratchName } from '../workspace/scratch-line.ts';
import { buildCandidate, checkCandidateLoads, discardCandidate } from './candidate.ts';
import { pendingReleases, type PendingRelease } from '../workspace/approval.ts';
import { concludeCandidate } from '../gate/conclude.ts';
import { baselineRecordCount, recordBaseline, type RunResult } from '../run/execute-run.ts';
import { withCheckout } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';
import { previousDiagnosis, readRcHistory } from './rc-history.ts';
import { stopReason, type IterationResult } from './stop.ts';
import { readTaskBrief } from './task-brief.ts';
import { recordGradient } from './gradient.ts';
import { auditRef, candidateRef, currentRelease, nextIteration, tagName } from '../workspace/versions.ts';
import { lineTip, refuseShallowHistory } from '../workspace/workspace.ts';
import { applyLabelAliases } from '../workspace/label-aliases.ts';
import { adoptLabelMerges } from './label-merges.ts';
import { chargedTo } from '../run/usage-scope.ts';

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

/** Cases with at least one failing graded trial. */
function failingCases(run: RunResult): number {
  let failing = 0;
  for (const c of run.cases.values()) if (c.passes < c.graded) failing += 1;
  return failing;
}

/** The AgentDevel loop (Algorithm 1): the one place that knows the order of the stages. */
export async function iterate(parent: PipelineContext, options: IterateOptions): Promise<IterateOutcome> {
  const ablation = options.ablation ?? null;
  refuseAblationOnRealLine(parent.workspace.config, ablation);
  await refuseShallowHistory(parent.workspace, 'iterate');
  // The critic's switch reaches the runs through the context; the other two act here and in the gate.
  const context: PipelineContext = ablation === 'critic-sees-blueprint' ? { ...parent, criticSeesBlueprint: true } : parent;
  const { workspace, reporter } = context;
  const { config, store, repo } = workspace;
  if (ablation) reporter.emit({ type: 'warning', message: `ablation ${ablation} on scratch line ${config.line.branch}: ${ABLATION_TEXT[ablation]}` });
  const stopPolicy = { ...config.stop, maxIterations: options.maxIterations ?? config.stop.maxIterations };
  const results: IterationSummary[] = [];
  let simulated = false;

  for (;;) {
    const tip = await lineTip(workspace);
    const release = await currentRelease(repo, config, tip);
    // A release waiting for a person's approval holds the line: nothing more is built on it until then.
    const waiting = await pendingReleases(workspace);
    if (waiting.length > 0) return { iterations: results, stopReason: awaitingApproval(waiting, tip), release: release.label, simulated, ablation };
    const iteration = await nextIteration(repo, config);
    // Every model call of this iteration is charged to it.
    const ended = await chargedTo({ iteration }, async (): Promise<IterateOutcome | null> => {
      // The vocabulary as it stood when this iteration started: aliases recorded later (a replay) are not in effect yet.
      await applyLabelAliases(repo, config, store, { iteration, stage: 'start' });
      reporter.emit({ type: 'stage', stage: 'run', message: `iteration ${iteration}: running ${release.label} on the train split` });
      // One checkout of the current release serves the baseline run, the synthesizer's view of
      // the blueprint, the credit per component and the gradient records (the task's requirements).
      const { screen, files, brief, task, stop, gradient: gradientRecord, credit } = await withCheckout(workspace, tip, async (source) => {
        const recorded = await recordBaseline(context, source, release.label, baselineRecordCount(config));
        const blueprintFiles = await workspace.files.blueprints.readFiles(source.dir, config.blueprint);
        // The release's first record is its ordinary run: what the diagnosis reads and the stop rules count.
        const first = recorded.records[0] as RunResult;
        const stopNow = stopReason(results, stopPolicy, failingCases(first));
        // Credit per component, read from the release's ordinary run (and the judge, when on); the
        // judge's verdicts also decide which components the gradient records say contributed.
        const credited = stopNow ? null : await recordCredit(context, { iteration, run: first, files: blueprintFiles, history: await readRcHistory(workspace) });
        return {
          screen: recorded,
          files: blueprintFiles,
          brief: await workspace.files.blueprints.readBrief(source.dir, config.blueprint),
          task: await readTaskBrief(workspace, source.dir),
          stop: stopNow,
          gradient: stopNow
            ? null
            : await recordGradient(context, { iteration, release: release.label, releaseCommit: tip, runId: first.runId, files: blueprintFiles, checkout: source.dir, helpful: credited?.helpful ?? null }),
          credit: credited?.document ?? null,
        };
      });
      const baseline = screen.records[0] as RunResult;
      if (credit) reporter.emit({ type: 'stage', stage: 'credit', message: creditLine(iteration, credit) });
      simulated ||= baseline.simulated;
      if (stop) return { iterations: results, stopReason: stop, release: release.label, simulated, ablation };
      const gradient = gradientRecord?.document ?? null;

      // Earlier RCs, from git: what was tried, what it fixed and broke, and how the gate judged it.
      const history = await readRcHistory(workspace);
      reporter.emit({ type: 'stage', stage: 'diagnose', message: `iteration ${iteration}: diagnosing ${failingCases(baseline)} failing cases` });
      const diagnosis: Diagnosed = ablation === 'no-diagnosis'
        ? undiagnosed(store.records(baseline.runId), store.taxonomy())
        : await diagnose(
            {
              runId: baseline.runId,
              tracesRoot: workspace.tracesRoot,
              workDir: path.join(workspace.stateDir, 'diagnose', `iter-${String(iteration).padStart(3, '0')}`),
              previousScript: await previousScript(context, iteration),
              ...(await previousDiagnosis(workspace, history)),
              model: config.models.diagnostician,
              taxonomy: store.taxonomy(),
              limits: config.sandbox,
              maxRepairs: config.repairs.diagnosis,
              gradient,
            },
            { model: context.model, sandbox: context.sandbox, reporter, records: store },
          );

      // Synonyms the diagnostician merged read as one label from here on (the synthesizer's enum, the gate's hit rate).
      const view = await adoptLabelMerges(context, { iteration, proposals: diagnosis.labelMerges, report: diagnosis.report, vocabulary: diagnosis.vocabulary, screen, baselineRunId: baseline.runId });

      reporter.emit({ type: 'stage', stage: 'synthesize', message: `iteration ${iteration}: synthesizing one release candidate` });
      // The synthesizer sees the failures the diagnosis describes, as they happened (train cases only).
      const trainCases = await workspace.files.tasks.loadSplit(await workspace.files.tasks.loadTask(workspace.root, config.task), 'train');
      const evidence = await synthesisEvidence(view.report, store.records(baseline.runId), trainCases, (record) => readTraceOrNote(workspace.tracesRoot, record.traceRef, []), config.evidence, gradient);
      const synthesis = await synthesize(
        { blueprint: config.blueprint, files, brief, diagnosis: view.report, evidence, history, taxonomy: view.vocabulary, task, model: config.models.synthesizer, maxRepairs: config.repairs.synthesis, gradient },
        {
          model: context.model,
          reporter,
          validate: async (candidate) => {
            const built = await buildCandidate(workspace, tip, iteration, candidate);
            return { built, problem: await checkCandidateLoads(workspace, built) };
          },
        },
      );
      // The iteration has an outcome now (an outage would have thrown): its gradient records and label merges go to git.
      await gradientRecord?.write();
      await view.record(tip);

      if (synthesis.kind === 'no_candidate') {
        if (synthesis.built) await discardCandidate(workspace, synthesis.built);
        reporter.emit({ type: 'stage', stage: 'synthesize', message: `iteration ${iteration}: ${synthesis.reason}` });
        store.saveDecision(
          noCandidateEntry({
            blueprint: config.blueprint,
            iteration,
            baselineRun: baseline.runId,
            reasons: [synthesis.reason, ...synthesis.attempts, diagnosisNote(diagnosis), ...(ablation ? [`ablation ${ablation}: ${ABLATION_TEXT[ablation]}`] : [])],
          }),
        );
        results.push({
          iteration,
          kind: 'no_candidate',
          f2p: [],
          p2f: [],
          p2fRate: 0,
          rc: null,
          tag: null,
          reasons: [synthesis.reason, diagnosisNote(diagnosis)],
          targets: [],
          diagnosisSource: diagnosis.source,
          ablation,
          gradientDropped: gradient?.dropped.count ?? 0,
          // Nothing was committed: the report stays in the iteration's work folder.
          diagnosis: diagnosis.source === 'none' ? null : { note: diagnosisNote(diagnosis), file: path.relative(workspace.root, diagnosis.reportFile), ref: null },
        });
        const stopNow = stopReason(results, stopPolicy, failingCases(baseline)) ?? synthesis.reason;
        return { iterations: results, stopReason: stopNow, release: release.label, simulated, ablation };
      }

      const candidate = synthesis.built;
      try {
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
          credit,
          gradient: gradientRecord ? gradientSummary(gradientRecord.document, gradientRecord.ref) : null,
          ablation,
          edits: await repo.changedPaths(tip, candidate.commit),
          outside: [],
          changeBase: tip,
          reportDir: null,
        });
        const { decision } = conclusion;
        const kind = conclusion.outcome === 'promoted' || conclusion.outcome === 'pending' ? conclusion.outcome : 'rejected';
        simulated ||= conclusion.simulated;
        const said = { promoted: `promoted ${conclusion.tag}`, pending: 'accepted, awaiting approval', rejected: 'rejected' }[kind];
        reporter.emit({ type: 'stage', stage: 'gate', message: `iteration ${iteration}: ${said}: ${decision.f2p.length} F→P, ${decision.p2f.length} P→F` });
        results.push({
          iteration,
          kind,
          f2p: decision.f2p,
          p2f: decision.p2f,
          p2fRate: decision.rates.p2fRate,
          rc: candidateRef(config, iteration),
          tag: conclusion.tag,
          reasons: decision.reasons,
          targets: synthesis.candidate.intent.targets,
          diagnosisSource: diagnosis.source,
          ablation,
          gradientDropped: gradient?.dropped.count ?? 0,
          // Committed with the decision: in the release (and on the line), or on the RC's audit ref.
          diagnosis:
            diagnosis.source === 'none'
              ? null
              : { note: diagnosisNote(diagnosis), file: `${diagnosticsFolder(config.blueprint, iteration)}/report.json`, ref: conclusion.tag ?? conclusion.auditRef },
        });
        if (kind === 'pending') return { iterations: results, stopReason: awaitingApproval(await pendingReleases(workspace), tip), release: release.label, simulated, ablation };
        const after = kind === 'promoted' && conclusion.evaluation ? conclusion.evaluation.candidateRun : baseline;
        const stopAfter = stopReason(results, stopPolicy, failingCases(after));
        if (stopAfter) {
          const final = await currentRelease(repo, config, await lineTip(workspace));
          return { iterations: results, stopReason: stopAfter, release: final.label, simulated, ablation };
        }
      } finally {
        await discardCandidate(workspace, candidate);
      }
      return null;
    });
    if (ended) return ended;
  }
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

/** The `no-diagnosis` ablation: the raw records stand in for the report, and no script runs. */
type Diagnosed = DiagnoseResult | (Omit<DiagnoseResult, 'source' | 'script' | 'reportFile'> & { readonly source: 'none' });

function undiagnosed(records: readonly CaseRecord[], taxonomy: readonly SymptomEntry[]): Diagnosed {
  return { report: rawRecordsReport(records), source: 'none', attempts: [], usage: zeroUsage, vocabulary: symptomVocabulary(taxonomy, records), labelMerges: [] };
}

function diagnosisNote(diagnosis: Diagnosed): string {
  if (diagnosis.source === 'none') return 'diagnosis: none (ablation no-diagnosis: the synthesizer read the raw records)';
  if (diagnosis.source === 'generated') return 'diagnosis: the generated script was used';
  const failed = diagnosis.attempts.filter((a) => !a.ok);
  return failed.length === 0
    ? 'diagnosis: built-in diagnosis script used'
    : `diagnosis: built-in diagnosis used after ${failed.length} failed attempt${failed.length === 1 ? '' : 's'} (last: ${failed.at(-1)?.error ?? 'unknown'})`;
}

/** The diagnosis script of the latest recorded iteration: the soft reference for this one. */
async function previousScript(context: PipelineContext, iteration: number): Promise<string | null> {
  const { repo, config } = context.workspace;
  for (let previous = iteration - 1; previous >= 1; previous -= 1) {
    const ref = auditRef(config, previous);
    const script = await repo.readFileAt(ref, `diagnostics/${config.blueprint}/iter-${String(previous).padStart(3, '0')}/diagnosis.mjs`);
    if (script !== null) return script;
  }
  return null;
}
