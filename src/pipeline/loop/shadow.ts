import { readTraceOrNote } from '../../stages/run/trace-file.ts';
import { synthesisEvidence } from './synthesis-evidence.ts';
// Shadow mode (AutoEvolve, section 4.2.2): agentdevel works beside the people on the same
// change. For a human's change to the blueprint (a PR branch, a tag, a commit) it synthesizes the
// RC it would have proposed from the same base, gates both against that base, and reports them
// side by side. It never promotes: no decision is recorded in git, and the line, its branches
// and its tags stay where they are.
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import type { GateDecision } from '../../domain/decision.ts';
import { addUsage, type Usage } from '../../domain/ports/model.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import { diagnose } from '../../stages/diagnose/diagnose.ts';
import { synthesize } from '../../stages/synthesize/synthesize.ts';
import { buildCandidate, checkCandidateLoads, discardCandidate } from './candidate.ts';
import { concludeCandidate } from '../gate/conclude.ts';
import { scopeHumanChange, underLineConfig, withReleaseResults } from '../gate/human-change.ts';
import type { HumanChange } from '../../domain/human-change.ts';
import type { ShadowSummaryInput, ShadowSummarySide } from '../../stages/report/shadow-summary.ts';
import { baselineRecordCount, recordBaseline, type BaselineScreen, type RunResult } from '../run/execute-run.ts';
import { withCheckout } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';
import { readRcHistory } from './rc-history.ts';
import { readTaskBrief } from './task-brief.ts';
import { currentRelease, nextIteration, tagName } from '../workspace/versions.ts';
import { lineTip } from '../workspace/workspace.ts';

/**
 * One side of the comparison: what the summary renders (stages/report/shadow-summary.ts), with the
 * intent as the RC stated it. `verdict` none: agentdevel found no valid RC. `caseTrials`: what the
 * agent ran for this side (reused runs cost none); `costUsd` adds agentdevel's diagnosis and synthesis.
 */
export interface ShadowSide extends Omit<ShadowSummarySide, 'intent'> {
  readonly intent: ChangeIntent | null;
}

export interface ShadowOutcome extends Omit<ShadowSummaryInput, 'human' | 'agentdevel' | 'preferred' | 'humanChange'> {
  readonly human: ShadowSide;
  readonly agentdevel: ShadowSide;
  /** Which change the gate prefers (`preferredBecause` says why, in one line). */
  readonly preferred: 'human' | 'agentdevel' | 'neither' | 'either';
  /** What the human change touches beyond the blueprint, and how its gate treated it (null: the blueprint alone). */
  readonly humanChange: HumanChange | null;
}

function side(label: string, commit: string | null, decision: GateDecision | null, intent: ChangeIntent | null, caseTrials: number, costUsd: number, reasons?: readonly string[]): ShadowSide {
  return {
    label,
    commit,
    verdict: decision ? (decision.verdict === 'accept' ? 'accepted' : 'rejected') : 'none',
    f2p: decision?.f2p ?? [],
    p2f: decision?.p2f ?? [],
    reasons: reasons ?? decision?.reasons ?? [],
    intent,
    caseTrials,
    costUsd,
  };
}

const trialsOf = (runs: readonly RunResult[]): number => runs.reduce((n, r) => n + (r.reused ? 0 : r.counts.caseTrials), 0);

/** The gate's preference between the two changes: accepted beats rejected; then more net confirmed fixes. */
export function preference(human: ShadowSide, agentdevel: ShadowSide): Pick<ShadowOutcome, 'preferred' | 'preferredBecause'> {
  const ok = (s: ShadowSide) => s.verdict === 'accepted';
  if (ok(human) !== ok(agentdevel)) {
    const winner = ok(human) ? 'human' : 'agentdevel';
    return { preferred: winner, preferredBecause: `the gate accepts only the ${winner === 'human' ? "human's change" : "agentdevel's RC"}` };
  }
  if (!ok(human)) return { preferred: 'neither', preferredBecause: 'the gate accepts neither change' };
  const net = (s: ShadowSide) => s.f2p.length - s.p2f.length;
  if (net(human) === net(agentdevel)) return { preferred: 'either', preferredBecause: `both are accepted with ${net(human)} net confirmed fixes each` };
  const winner = net(human) > net(agentdevel) ? 'human' : 'agentdevel';
  return { preferred: winner, preferredBecause: `both are accepted; ${winner === 'human' ? "the human's change" : "agentdevel's RC"} has more confirmed fixes net of regressions (${Math.max(net(human), net(agentdevel))} against ${Math.min(net(human), net(agentdevel))})` };
}

export async function shadow(outer: PipelineContext, request: { readonly against: string }): Promise<ShadowOutcome> {
  const { repo } = outer.workspace;
  const commit = await repo.resolve(request.against);
  if (!commit) throw new AgentdevelError('REF_NOT_FOUND', `--against: "${request.against}" names no commit in ${outer.workspace.root}`);
  const tip = await lineTip(outer.workspace);
  // The human's change is measured from where it was cut; agentdevel starts from the same place.
  const base = (await repo.mergeBase(tip, commit)) ?? tip;
  if (base === commit) throw new AgentdevelError('USAGE', `--against: "${request.against}" adds nothing to the line (it is ${commit === tip ? 'its tip' : 'already in it'})`);
  const changed = await repo.changedPaths(base, commit);
  const release = await currentRelease(repo, outer.workspace.config, base);
  const label = base === tip ? release.label : `${outer.workspace.config.line.branch}@${base.slice(0, 10)}`;
  // Both changes are gated as `gate` would: under the line's config, whatever the human's says.
  const context = await underLineConfig(outer, { commit: base, label });
  const { workspace, reporter } = context;
  const { config, store } = workspace;
  const iteration = await nextIteration(repo, config);
  reporter.emit({ type: 'stage', stage: 'run', message: `shadow: running the base (${label}) on the train split` });
  const { screen, files, brief, task } = await withCheckout(workspace, base, async (source) => ({
    screen: await recordBaseline(context, source, label, baselineRecordCount(config)),
    files: await workspace.files.blueprints.readFiles(source.dir, config.blueprint),
    brief: await workspace.files.blueprints.readBrief(source.dir, config.blueprint),
    task: await readTaskBrief(workspace, source.dir),
  }));
  const baseline = screen.records[0] as RunResult;

  const gateAgainstBase = (
    candidate: { ref: string; commit: string; dir: string },
    intent: ChangeIntent | null,
    fingerprint: string | null,
    scope: { readonly outside: readonly string[]; readonly against: { readonly label: string; readonly screen: BaselineScreen; readonly measuredOn: string | null }; readonly change: HumanChange | null },
    edits: Awaited<ReturnType<typeof repo.changedPaths>>,
  ) =>
    concludeCandidate(context, {
      iteration,
      record: false,
      candidate,
      baseline: { commit: base, label: scope.against.label, screen: scope.outside.length > 0 ? null : scope.against.screen, measuredOn: scope.against.measuredOn },
      nextRelease: tagName(config, release.version + 1),
      intent,
      fingerprint,
      diagnosis: null,
      edits,
      outside: scope.outside,
      change: scope.change,
      changeBase: base,
      reportDir: null,
    });

  // The human's change, as `gate --candidate` would judge it against the base: by kind of path,
  // its task edits measured on both sides (the base's blueprint on the human's task).
  reporter.emit({ type: 'stage', stage: 'gate', message: `shadow: gating ${request.against} against the base` });
  // Advisory: shadow records nothing, so a change to the sealed test split is not resealed here (gate --reseal-test does).
  const scope = await scopeHumanChange(context, { ref: request.against, commit, changeBase: base, changed, release: { commit: base, label }, testSplit: null });
  const humanScreen =
    scope.baseline.onCandidateTask && scope.outside.length === 0
      ? await withCheckout(workspace, scope.baseline.commit, (source) => recordBaseline(context, source, scope.baseline.label, baselineRecordCount(config)))
      : screen;
  const humanScope = {
    outside: scope.outside,
    against: { label: scope.baseline.label, screen: humanScreen, measuredOn: scope.baseline.onCandidateTask ? scope.baseline.commit : null },
    change: withReleaseResults(scope.change, humanScreen),
  };
  const human = await withCheckout(workspace, commit, (source) => gateAgainstBase({ ref: request.against, commit, dir: source.dir }, null, null, humanScope, changed));
  const humanSide = side(request.against, commit, human.decision, null, human.evaluation ? trialsOf([human.evaluation.candidateRun, ...human.evaluation.confirmRuns]) : 0, 0);

  // agentdevel's RC from the same base: diagnose, synthesize, gate; then discard it.
  reporter.emit({ type: 'stage', stage: 'diagnose', message: 'shadow: diagnosing the base' });
  const history = await readRcHistory(workspace);
  const diagnosis = await diagnose(
    {
      runId: baseline.runId,
      tracesRoot: workspace.tracesRoot,
      workDir: path.join(workspace.stateDir, 'diagnose', 'shadow'),
      previousScript: null,
      previousReport: null,
      lastRc: null,
      caseChanges: null,
      model: config.models.diagnostician,
      taxonomy: store.taxonomy(),
      limits: config.sandbox,
      maxRepairs: config.repairs.diagnosis,
    },
    { model: context.model, sandbox: context.sandbox, reporter, records: store },
  );
  // The synthesizer sees the failures the diagnosis describes, as they happened (train cases only).
  const trainCases = await workspace.files.tasks.loadSplit(await workspace.files.tasks.loadTask(workspace.root, config.task), 'train');
  const evidence = await synthesisEvidence(diagnosis.report, store.records(baseline.runId), trainCases, (record) => readTraceOrNote(workspace.tracesRoot, record.traceRef, []), config.evidence);
  const synthesis = await synthesize(
    { blueprint: config.blueprint, files, brief, evidence, diagnosis: diagnosis.report, history, taxonomy: diagnosis.vocabulary, task, model: config.models.synthesizer, maxRepairs: config.repairs.synthesis },
    {
      model: context.model,
      reporter,
      validate: async (candidate) => {
        const built = await buildCandidate(workspace, base, iteration, candidate);
        return { built, problem: await checkCandidateLoads(workspace, built) };
      },
    },
  );
  const usage: Usage = addUsage(diagnosis.usage, synthesis.usage);
  let agentdevelSide: ShadowSide;
  try {
    if (synthesis.kind === 'no_candidate') {
      agentdevelSide = side('agentdevel', null, null, null, 0, usage.costUsd, [synthesis.reason]);
    } else {
      const rc = synthesis.built;
      reporter.emit({ type: 'stage', stage: 'gate', message: `shadow: gating agentdevel's RC (${synthesis.candidate.intent.targets.join(', ')}) against the base` });
      const ours = await gateAgainstBase(
        { ref: 'agentdevel (shadow RC)', commit: rc.commit, dir: rc.dir },
        synthesis.candidate.intent,
        synthesis.fingerprint,
        { outside: [], against: { label, screen, measuredOn: null }, change: null },
        await repo.changedPaths(base, rc.commit),
      );
      agentdevelSide = side('agentdevel', rc.commit, ours.decision, synthesis.candidate.intent, ours.evaluation ? trialsOf([ours.evaluation.candidateRun, ...ours.evaluation.confirmRuns]) : 0, usage.costUsd);
    }
  } finally {
    if (synthesis.built) await discardCandidate(workspace, synthesis.built);
  }
  const humanFixed = new Set(humanSide.f2p);
  const oursFixed = new Set(agentdevelSide.f2p);
  return {
    base: { commit: base, label },
    human: humanSide,
    agentdevel: agentdevelSide,
    fixedInCommon: [...humanFixed].filter((id) => oursFixed.has(id)).sort(),
    fixedOnlyByHuman: [...humanFixed].filter((id) => !oursFixed.has(id)).sort(),
    fixedOnlyByAgentdevel: [...oursFixed].filter((id) => !humanFixed.has(id)).sort(),
    ...preference(humanSide, agentdevelSide),
    simulated: baseline.simulated,
    humanChange: human.evidence.change ?? null,
  };
}
