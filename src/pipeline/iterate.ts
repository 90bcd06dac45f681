import { readTraceOrNote } from '../stages/run/trace-file.ts';
import { loadSplit, loadTask } from '../task/load.ts';
import { synthesisEvidence } from './synthesis-evidence.ts';
import path from 'node:path';
import { readBlueprintBrief } from '../blueprint/brief.ts';
import { readBlueprintFiles } from '../blueprint/load.ts';
import { diagnose, type DiagnoseResult } from '../stages/diagnose/diagnose.ts';
import { synthesize } from '../stages/synthesize/synthesize.ts';
import { buildCandidate, checkCandidateLoads, discardCandidate, type BuiltCandidate } from './candidate.ts';
import { pendingReleases } from './approval.ts';
import { concludeCandidate } from './conclude.ts';
import { baselineRecordCount, recordBaseline, withCheckout, type RunContext, type RunResult } from './execute-run.ts';
import { previousDiagnosis, readRcHistory } from './rc-history.ts';
import { stopReason, type IterationResult } from './stop.ts';
import { readTaskBrief } from './task-brief.ts';
import { auditRef, currentRelease, nextIteration, tagName } from './versions.ts';
import { lineTip } from './workspace.ts';

export interface IterationSummary extends IterationResult {
  readonly rc: string | null;
  readonly tag: string | null;
  readonly reasons: readonly string[];
  readonly targets: readonly string[];
  readonly diagnosisSource: 'generated' | 'builtin';
}

export interface IterateOutcome {
  readonly iterations: IterationSummary[];
  readonly stopReason: string;
  readonly release: string;
  readonly simulated: boolean;
}

/** Cases with at least one failing graded trial. */
function failingCases(run: RunResult): number {
  let failing = 0;
  for (const c of run.cases.values()) if (c.passes < c.graded) failing += 1;
  return failing;
}

/** The AgentDevel loop (Algorithm 1): the one place that knows the order of the stages. */
export async function iterate(context: RunContext, options: { maxIterations: number | null }): Promise<IterateOutcome> {
  const { workspace, reporter } = context;
  const { config, store, repo } = workspace;
  const stopPolicy = { ...config.stop, maxIterations: options.maxIterations ?? config.stop.maxIterations };
  const results: IterationSummary[] = [];
  let simulated = false;

  for (;;) {
    const tip = await lineTip(workspace);
    const release = await currentRelease(repo, config, tip);
    // A release waiting for a person's approval holds the line: nothing more is built on it until then.
    const waiting = (await pendingReleases(workspace))[0];
    if (waiting) return { iterations: results, stopReason: awaitingApproval(waiting.iteration, waiting.document.release), release: release.label, simulated };
    const iteration = await nextIteration(repo, config);
    context.usageScope.iteration = iteration;
    reporter.emit({ type: 'stage', stage: 'run', message: `iteration ${iteration}: running ${release.label} on the train split` });
    // One checkout of the current release serves both the baseline run and the synthesizer's view of the blueprint.
    const { screen, files, brief, task } = await withCheckout(workspace, tip, async (source) => ({
      screen: await recordBaseline(context, source, release.label, baselineRecordCount(config)),
      files: await readBlueprintFiles(source.dir, config.blueprint),
      brief: await readBlueprintBrief(source.dir, config.blueprint),
      task: await readTaskBrief(workspace, source.dir),
    }));
    // The release's first record is its ordinary run: what the diagnosis reads and the stop rules count.
    const baseline = screen.records[0] as RunResult;
    simulated ||= baseline.simulated;
    const stop = stopReason(results, stopPolicy, failingCases(baseline));
    if (stop) return { iterations: results, stopReason: stop, release: release.label, simulated };

    // Earlier RCs, from git: what was tried, what it fixed and broke, and how the gate judged it.
    const history = await readRcHistory(workspace);
    reporter.emit({ type: 'stage', stage: 'diagnose', message: `iteration ${iteration}: diagnosing ${failingCases(baseline)} failing cases` });
    const diagnosis = await diagnose(
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
      },
      { model: context.model, reporter, records: store },
    );

    reporter.emit({ type: 'stage', stage: 'synthesize', message: `iteration ${iteration}: synthesizing one release candidate` });
    // The synthesizer sees the failures the diagnosis describes, as they happened (train cases only).
    const trainCases = await loadSplit(await loadTask(workspace.root, config.task), 'train');
    const evidence = await synthesisEvidence(diagnosis.report, store.records(baseline.runId), trainCases, (record) => readTraceOrNote(workspace.tracesRoot, record.traceRef, []), config.evidence);
    let built: BuiltCandidate | null = null;
    const synthesis = await synthesize(
      { blueprint: config.blueprint, files, brief, diagnosis: diagnosis.report, evidence, history, taxonomy: diagnosis.vocabulary, task, model: config.models.synthesizer, maxRepairs: config.repairs.synthesis },
      {
        model: context.model,
        reporter,
        validate: async (candidate) => {
          built = await buildCandidate(workspace, tip, iteration, candidate);
          return checkCandidateLoads(workspace, built);
        },
      },
    );

    if (synthesis.kind === 'no_candidate') {
      if (built) await discardCandidate(workspace, built);
      reporter.emit({ type: 'stage', stage: 'synthesize', message: `iteration ${iteration}: ${synthesis.reason}` });
      store.saveDecision({
        blueprint: config.blueprint,
        iteration,
        candidateRef: '(none)',
        candidateCommit: null,
        baselineRun: baseline.runId,
        candidateRun: null,
        outcome: 'no_candidate',
        reasons: [synthesis.reason, ...synthesis.attempts, diagnosisNote(diagnosis)],
        intent: null,
        tag: null,
        auditRef: null,
        f2p: [],
        p2f: [],
      });
      results.push({ iteration, kind: 'no_candidate', f2p: [], p2f: [], p2fRate: 0, rc: null, tag: null, reasons: [synthesis.reason, diagnosisNote(diagnosis)], targets: [], diagnosisSource: diagnosis.source });
      const stopNow = stopReason(results, stopPolicy, failingCases(baseline)) ?? synthesis.reason;
      return { iterations: results, stopReason: stopNow, release: release.label, simulated };
    }

    const candidate = built as unknown as BuiltCandidate;
    try {
      reporter.emit({ type: 'stage', stage: 'gate', message: `iteration ${iteration}: running the RC (${synthesis.candidate.intent.targets.join(', ')})` });
      const conclusion = await concludeCandidate(context, {
        iteration,
        record: true,
        candidate: { ref: candidate.branch, commit: candidate.commit, dir: candidate.dir },
        baseline: { commit: tip, label: release.label, screen },
        nextRelease: tagName(config, release.version + 1),
        intent: synthesis.candidate.intent,
        fingerprint: synthesis.fingerprint,
        diagnosis: { ...diagnosis, synthesisAttempts: synthesis.attempts },
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
        rc: candidate.branch,
        tag: conclusion.tag,
        reasons: decision.reasons,
        targets: synthesis.candidate.intent.targets,
        diagnosisSource: diagnosis.source,
      });
      if (kind === 'pending') return { iterations: results, stopReason: awaitingApproval(iteration, tagName(config, release.version + 1)), release: release.label, simulated };
      const after = kind === 'promoted' && conclusion.evaluation ? conclusion.evaluation.candidateRun : baseline;
      const stopAfter = stopReason(results, stopPolicy, failingCases(after));
      if (stopAfter) {
        const final = await currentRelease(repo, config, await lineTip(workspace));
        return { iterations: results, stopReason: stopAfter, release: final.label, simulated };
      }
    } finally {
      await discardCandidate(workspace, candidate);
    }
  }
}

function awaitingApproval(iteration: number, release: string | null): string {
  return `the release candidate of iteration ${iteration}${release ? ` (${release})` : ''} awaits approval: \`agentdevel approve ${iteration}\` or \`agentdevel decline ${iteration} --reason …\``;
}

function diagnosisNote(diagnosis: DiagnoseResult): string {
  if (diagnosis.source === 'generated') return 'diagnosis: the generated script was used';
  const failed = diagnosis.attempts.filter((a) => !a.ok);
  return failed.length === 0
    ? 'diagnosis: built-in diagnosis script used'
    : `diagnosis: built-in diagnosis used after ${failed.length} failed attempt${failed.length === 1 ? '' : 's'} (last: ${failed.at(-1)?.error ?? 'unknown'})`;
}

/** The diagnosis script of the latest recorded iteration: the soft reference for this one. */
async function previousScript(context: RunContext, iteration: number): Promise<string | null> {
  const { repo, config } = context.workspace;
  for (let previous = iteration - 1; previous >= 1; previous -= 1) {
    const ref = auditRef(config, previous);
    const script = await repo.readFileAt(ref, `diagnostics/${config.blueprint}/iter-${String(previous).padStart(3, '0')}/diagnosis.mjs`);
    if (script !== null) return script;
  }
  return null;
}
