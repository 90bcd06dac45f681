import { judgeOnce, type VerdictsInFlight } from '../../stages/critic/judge-once.ts';
import { createHash, randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { rubricWithBlueprint } from '../../domain/blueprint-shown.ts';
import type { Clock } from '../../domain/ports/clock.ts';
import type { Split } from '../../domain/case.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { passRateOf, poolCaseSummaries, runCounts, type CaseSummary, type RunCounts } from '../../domain/case-summary.ts';
import { provenanceOf, type Provenance } from '../../domain/provenance.ts';
import { effectiveCriticPolicy } from '../../domain/record.ts';
import { criticJudged } from '../../domain/requirements.ts';
import { declaredSymptoms } from '../../domain/symptoms.ts';
import { childEnvironment } from '../../domain/environment.ts';
import { runCases, type RunTally } from '../../stages/run/run.ts';
import { openRunTraces } from '../../stages/run/trace-file.ts';
import type { RunPurpose } from '../../domain/ports/record-store.ts';
import type { Task } from '../../domain/task.ts';
import { caseTrialSettings } from './case-trial-executor.ts';
import type { CaseTrials } from '../../domain/ports/case-trial-executor.ts';
import type { CaseTrialTurns } from '../../domain/ports/case-trial-turns.ts';
import { failedRunError } from './failed-run.ts';
import { firstTaking, rerunReason, type RunKeyParts } from '../../domain/run-fingerprint.ts';
import type { Workspace } from '../workspace/workspace.ts';
import type { VersionSource } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';
import { chargedTo, currentScope } from './usage-scope.ts';
import { budgetReachedError } from '../../domain/budget.ts';

/** Bumped when a change to agentdevel would change records of the same version (cache invalidation). */
const RECORD_FORMAT = 3;

export interface RunRequest {
  readonly source: VersionSource;
  readonly split: Split;
  readonly trials: number;
  readonly purpose: RunPurpose;
  readonly label: string;
  /** Only these cases (confirmation re-runs); all cases of the split when absent. */
  readonly cases?: readonly string[];
  /** Number of the first trial, so extra trials are fresh draws rather than repeats. */
  readonly firstTrial?: number;
  /** At most this many case-trials in flight (the version's concurrency when absent): two versions running side by side share it. */
  readonly concurrency?: number;
  /** When each case-trial may start (the gate's confirmation pairs the two versions' trials). */
  readonly turns?: CaseTrialTurns;
  /** Run now even when records of the same key exist, for this reason (said wherever the run's origin is). */
  readonly fresh?: { readonly reason: string };
}

export interface RunResult {
  readonly runId: string;
  /**
   * Per-case pass counts, in the split's order (case id order when reused). The records and
   * traces stay in the store and traces/: read them by run id (store.eachRecord, readTrace).
   */
  readonly cases: ReadonlyMap<string, CaseSummary>;
  readonly counts: RunCounts;
  readonly reused: boolean;
  /** Where the records come from: run now, this store's earlier run, or a run recorded in git (a fresh clone's store is rebuilt from those). */
  readonly origin: 'fresh' | 'store' | 'git';
  /** True only when the mock engine played the agent (see domain/provenance). */
  readonly simulated: boolean;
  readonly mockRoles: Provenance['mockRoles'];
  /** Content fingerprints of the task and the blueprint version (the scope of the flaky history). */
  readonly taskTree: string;
  readonly blueprintTree: string;
  /** For a run made now: why no recorded run was reused (which part of the key differs, or that none is recorded). */
  readonly rerunReason?: string | null;
  /** For a baseline record made now: it was never taken before (this is the release's first gate), not taken again. */
  readonly firstTaking?: boolean;
  /** For a run made now: its infrastructure errors told apart (answers that stayed invalid, and the first outage). */
  readonly infra?: Pick<RunTally, 'invalidOutputs' | 'firstOutage'>;
}

/**
 * Names this command among others that judged in the same store: a verdict it keeps is reused
 * only within its own iteration (stages/critic/judge-once), and by other commands once the line
 * records it. One process runs one command.
 */
const COMMAND_SCOPE = randomBytes(6).toString('hex');
/** The critic requests this command has in flight, shared by its runs (see stages/critic/judge-once). */
const verdictsInFlight: VerdictsInFlight = new Map();

export function newRunId(clock: Clock): string {
  const stamp = clock.now().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return `run-${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * Runs one version of the blueprint over a split, or reuses the records of an identical
 * earlier run (same blueprint content, task content, split, trials and models). Cases are
 * loaded and validated before anything is recorded, so bad input leaves no trace.
 */
export async function runVersion(context: PipelineContext, request: RunRequest): Promise<RunResult> {
  const version = openVersion(context, request.source);
  try {
    return await version.run(request);
  } finally {
    await version.close();
  }
}

/** One checkout of a version, run as often as needed: the blueprint loads and the runtime starts once. */
export interface VersionSession {
  run(request: Omit<RunRequest, 'source'>): Promise<RunResult>;
  close(): Promise<void>;
}

/**
 * Opens a version for several runs (the gate's confirmation rounds): the bundles are built and
 * the runtime started at the first run that is not reused, and kept until `close`. Its task is
 * loaded once, at the first run (or given, when the caller has loaded it from the same checkout).
 */
export function openVersion(context: PipelineContext, source: VersionSource, loaded: { readonly task: Task } | null = null): VersionSession {
  const { workspace, reporter } = context;
  const { config, store } = workspace;
  const dir = source.dir;
  const blueprintFolder = `blueprints/${config.blueprint}`;
  const buildDir = path.join(workspace.stateDir, 'build', `${path.basename(dir)}-${randomBytes(3).toString('hex')}`);
  let started: Promise<CaseTrials> | null = null;
  let taskOfVersion: Promise<Task> | null = loaded ? Promise.resolve(loaded.task) : null;
  const executor = context.executor ?? context.localExecutor(context);
  const runtime = async (task: Task): Promise<CaseTrials> => {
    started ??= executor.start({ commit: source.commit, dir, task, settings: caseTrialSettings(config), buildDir });
    return started;
  };

  async function run(request: Omit<RunRequest, 'source'>): Promise<RunResult> {
    const task = await (taskOfVersion ??= workspace.files.tasks.loadTask(dir, config.task));
    const allCases = await workspace.files.tasks.loadSplit(task, request.split);
    const wanted = request.cases ? new Set(request.cases) : null;
    const unknown = wanted ? [...wanted].filter((id) => !allCases.some((c) => c.id === id)) : [];
    if (unknown.length > 0) {
      throw new AgentdevelError('USAGE', `no case of the ${request.split} split of rubrics/${config.task} has the id ${unknown.map((id) => `"${id}"`).join(', ')}`, {
        hint: 'Case ids are the "id" of each line of the split (`agentdevel run` lists the failing ones).',
      });
    }
    const cases = wanted ? allCases.filter((c) => wanted.has(c.id)) : allCases;
    const criticPolicy = effectiveCriticPolicy(config.critic, task.manifest.scorers.length > 0);
    if (criticPolicy === 'off' && task.manifest.scorers.length === 0) {
      throw new AgentdevelError('CONFIG_INVALID', `critic: "off" leaves rubrics/${config.task} without any grader (its task.json has no scorers)`, {
        hint: 'Add scorers to task.json, or set "critic" to "all" or "failing".',
        location: { key: 'critic' },
      });
    }
    if (criticPolicy === 'off' && cases.some((c) => criticJudged(task.requirements, c).length > 0)) {
      reporter.emit({ type: 'warning', message: `critic: "off" leaves the requirements only the critic judges unjudged (rubrics/${config.task}); set "critic" to "failing" or "all" to judge them` });
    }
    const manifest = await workspace.files.blueprints.readManifest(dir, config.blueprint);
    const provenance = provenanceOf(config.models, manifest.runtime !== 'command');
    const [blueprintTree, taskTree] = (await workspace.repo.folderFingerprints(dir, [blueprintFolder, `rubrics/${config.task}`])) as [string, string];
    const identity = {
      blueprint: config.blueprint,
      commit: source.commit,
      blueprintTree,
      taskTree,
      split: request.split,
      trials: request.trials,
      agentModel: config.models.agent,
      criticModel: config.models.critic,
      simulated: provenance.simulated,
    };
    const keyParts: RunKeyParts = { format: RECORD_FORMAT, criticPolicy, cases: request.cases ? [...request.cases] : null, firstTrial: request.firstTrial ?? 0, criticSeesBlueprint: context.criticSeesBlueprint === true };
    const cacheKey = createHash('sha256')
      .update(JSON.stringify({ ...identity, commit: undefined, format: RECORD_FORMAT, criticPolicy, cases: request.cases ?? null, firstTrial: request.firstTrial ?? 0, ...(context.criticSeesBlueprint ? { criticSeesBlueprint: true } : {}) }))
      .digest('hex');

    // Confirmation trials are fresh draws by definition, run beside the other version's: never an earlier run's.
    // A release's record is never an ad-hoc run of uncommitted files, even of the same content: what
    // the key leaves out (the config's other settings, files outside the blueprint) may have differed.
    const cached = request.purpose === 'confirm' || request.fresh ? undefined : store.findCompleteRun(cacheKey, { committedOnly: request.purpose === 'baseline' });
    if (cached) {
      const summaries = store.caseSummaries(cached.id);
      const counts = runCounts(summaries.values());
      reporter.emit({ type: 'run.finished', runId: cached.id, label: request.label, passRate: passRateOf(counts), reused: true, reusedFrom: cached.origin === 'git' ? 'git' : 'store', counts });
      return { runId: cached.id, cases: summaries, counts, reused: true, origin: cached.origin === 'git' ? 'git' : 'store', simulated: cached.simulated, mockRoles: provenance.mockRoles, taskTree: identity.taskTree, blueprintTree: identity.blueprintTree };
    }

    // A run of this key that the budget stopped is resumed: what it graded is kept, the rest runs now.
    // A baseline's screen taken again costs a whole run: say why no recorded one served.
    const stopped = request.purpose === 'confirm' || request.fresh ? undefined : store.findStoppedRun(cacheKey);
    const resumed = stopped ? store.records(stopped.id).filter((r) => r.status === 'ok') : [];
    if (stopped && resumed.length > 0) reporter.emit({ type: 'stage', stage: 'run', message: `${request.label}: resuming run ${stopped.id}, which the budget stopped: its ${resumed.length} graded case-trials are kept, the rest run now` });
    const recordedRuns = request.purpose === 'baseline' && !request.fresh ? store.runsOfBlueprint(identity.blueprintTree, request.split, 20).map((run) => ({ ...run, runId: run.id })) : [];
    const first = request.purpose === 'baseline' && !request.fresh && !stopped && firstTaking(recordedRuns, { ...identity, keyParts });
    const rerun =
      (stopped ? `the budget stopped its earlier run (${stopped.id}) before every case-trial ran: it is resumed (${resumed.length} case-trials kept)` : null) ??
      request.fresh?.reason ??
      (request.purpose === 'baseline'
        ? rerunReason(recordedRuns, { ...identity, keyParts }, { task: config.task })
        : null);
    const runId = newRunId(context.clock);
    // The critic starts from the rubric's declared labels (beside those git brought into the store), so the first run does not coin its own names for them.
    if (request.split !== 'test') for (const entry of declaredSymptoms(task.requirements)) store.addSymptom(entry.label, entry.description, null);
    const running = await runtime(task);
    // A fresh run, and confirmation trials (fresh draws beside the other version's, whose trial
    // numbers repeat from one gate against a release to the next), take no result an earlier
    // run left where results are kept by content (the queue's finished jobs).
    const agent = request.fresh || request.purpose === 'confirm' ? (running.afresh ?? running.runtime) : running.runtime;
    const concurrency = Math.max(1, Math.min(running.concurrency, request.concurrency ?? running.concurrency));
    store.createRun(runId, { ...identity, cacheKey, keyParts }, request.purpose);
    const traces = openRunTraces(workspace.tracesRoot, runId);
    let tally: RunTally;
    // Each content is judged once: identical traces (a deterministic agent's trials) reuse the verdict
    // the line records, or one given in this command's iteration (what a replay of it holds too).
    const judge = judgeOnce(context.model, store, `${COMMAND_SCOPE}/iteration-${currentScope().iteration ?? 'none'}`, verdictsInFlight);
    try {
      // Every model call of this run (the agent's, the critic's) is charged to it.
      tally = await chargedTo({ runId }, async () => runCases(
        {
          runId,
          label: request.label,
          cases,
          trials: request.trials,
          ...(request.firstTrial === undefined ? {} : { firstTrial: request.firstTrial }),
          concurrency,
          rubric: context.criticSeesBlueprint ? rubricWithBlueprint(task.rubric, await workspace.files.blueprints.readFiles(dir, config.blueprint)) : task.rubric,
          requirements: task.requirements,
          scorers: task.manifest.scorers,
          taskRoot: task.root,
          scriptEnvironment: childEnvironment(context.parentEnv),
          criticModel: config.models.critic,
          criticPolicy,
          growTaxonomy: request.split !== 'test',
          resumed,
        },
        { runtime: agent, model: judge.model, store, traces, scorerScripts: context.scorerScripts, reporter, redact: context.redact, ...(context.budget ? { budget: context.budget } : {}), ...(request.turns ? { turns: request.turns } : {}) },
      ));
      await traces.close();
    } catch (error) {
      await traces.abandon();
      store.finishRun(runId, 'failed');
      throw error;
    }
    // The budget stopped it: what was graded is kept for the run that resumes it, and nothing is decided on it.
    if (context.budget?.reached()) {
      store.finishRun(runId, 'stopped');
      throw budgetReachedError(context.budget);
    }
    const { counts } = tally;
    // Confirmation runs hold only cases that moved, so a shared error there says nothing about the agent.
    if (request.purpose !== 'confirm' && tally.agentErrorAlarm) reporter.emit({ type: 'warning', message: tally.agentErrorAlarm });
    // The cost ledger counts the calls not made (a count per run and reason, never a row per call).
    const scope = { ...currentScope(), runId };
    store.recordSparedCalls('critic', config.models.critic, tally.criticSpared, 'policy', scope);
    store.recordSparedCalls('critic', config.models.critic, judge.takeReused(), 'reused', scope);
    // A run with infrastructure errors is kept for this decision but never reused.
    store.finishRun(runId, counts.infraErrors === 0 ? 'complete' : 'failed');
    // A confirmation run holds a few cases of one side: the gate weighs its errors against the other side's, run beside it.
    if (request.purpose !== 'confirm' && counts.caseTrials > 0 && counts.infraErrors === counts.caseTrials) {
      throw failedRunError({ runId, caseTrials: counts.caseTrials, invalid: tally.invalidOutputs, firstOutage: tally.firstOutage });
    }
    // Symptoms read through the vocabulary's aliases, as the store reads them for a reused run.
    const summaries = new Map([...tally.cases].map(([id, c]) => [id, c.symptom === null ? c : { ...c, symptom: store.canonicalLabel(c.symptom) }]));
    return { runId, cases: summaries, counts, reused: false, origin: 'fresh', simulated: identity.simulated, mockRoles: provenance.mockRoles, taskTree: identity.taskTree, blueprintTree: identity.blueprintTree, rerunReason: rerun, firstTaking: first, infra: { invalidOutputs: tally.invalidOutputs, firstOutage: tally.firstOutage } };
  }

  return {
    run,
    close: async () => {
      try {
        // A runtime that failed to start has nothing to close; its error already reached the run that started it.
        const agent = started ? await started.then((r) => r.runtime, () => null) : null;
        await agent?.close();
      } finally {
        await rm(buildDir, { recursive: true, force: true });
      }
    },
  };
}

/** The current release's screen: its records, each `config.trials` trials a case, pooled per case. */
export interface BaselineScreen {
  /** Record 0 is the release's ordinary run (what `run` records); the others are fresh draws numbered after it. */
  readonly records: readonly RunResult[];
  readonly cases: ReadonlyMap<string, CaseSummary>;
}

/**
 * Takes (or reuses) `count` records of a version's screen on the train split. Each record is a
 * run of its own, cached by its first trial number, so a release's records are taken once and
 * reused by every later gate against it.
 */
export async function recordBaseline(context: PipelineContext, source: VersionSource, label: string, count: number, options: Pick<RunRequest, 'fresh'> = {}): Promise<BaselineScreen> {
  const trials = context.workspace.config.trials;
  const version = openVersion(context, source);
  try {
    const records: RunResult[] = [];
    for (let record = 0; record < count; record += 1) {
      records.push(
        await version.run({
          split: 'train',
          trials,
          purpose: 'baseline',
          label: record === 0 ? label : `${label} (record ${record + 1} of ${count})`,
          ...(record === 0 ? {} : { firstTrial: record * trials }),
          ...(options.fresh ? { fresh: options.fresh } : {}),
        }),
      );
    }
    return { records, cases: poolCaseSummaries(records.map((r) => r.cases)) };
  } finally {
    await version.close();
  }
}

/**
 * Where a screen's records came from, in words for the run summary and the report, and why any
 * were run now. Under the statistical gate records serve selection only (docs/gate.md), so
 * reusing them, from this store or from git, cannot move a test: every verdict rests on fresh
 * trials of both sides run together. Under "flips" the screen is the verdict, and a recorded one
 * is never reused (pipeline/gate/verdict-screen.ts).
 */
export function screenSourceText(screen: Pick<BaselineScreen, 'records'>, label: string): string {
  const n = screen.records.length;
  const fromGit = screen.records.filter((r) => r.origin === 'git').length;
  const fromStore = screen.records.filter((r) => r.origin === 'store').length;
  const fresh = screen.records.filter((r) => r.origin === 'fresh');
  const caseTrials = fresh.reduce((sum, r) => sum + r.counts.caseTrials, 0);
  const parts = [
    ...(fromGit > 0 ? [`${fromGit} recorded in git with earlier decisions (same blueprint, task, cases, models and trials)`] : []),
    ...(fromStore > 0 ? [`${fromStore} reused from this store`] : []),
    ...(fresh.length > 0 ? [`${fresh.length} run now (${caseTrials} case-trials)`] : []),
  ];
  const ran = fresh.length === 0 ? '; no baseline case-trial ran' : '';
  // The release's first gate takes its records: one plain sentence, and no reason to act on.
  if (fresh.length > 0 && fresh.every((r) => r.firstTaking)) {
    const taken = `${fresh.length === n ? `the release's ${n} record${n === 1 ? '' : 's'}` : `the release's other ${fresh.length} record${fresh.length === 1 ? '' : 's'}`} ${fresh.length === 1 ? 'is' : 'are'} taken now, once, at its first gate (${caseTrials} case-trials)`;
    const reused = parts.filter((p) => !p.includes('run now'));
    return `baseline screen of ${label}: ${[...reused, taken].join(', ')}: later gates against this release reuse them`;
  }
  // Taking the screen again costs a whole run of the split: say why (the first fresh record's
  // reason: the later records are further draws of the same version, run for the same reason).
  const reason = fresh.find((r) => r.rerunReason)?.rerunReason;
  const why = reason ? `; run now because ${reason}` : '';
  return `baseline screen of ${label}: ${n} record${n === 1 ? '' : 's'}, ${parts.join(', ')}${ran}${why}`;
}

/** How many records of the baseline's screen the gate selects with: one for the paper-faithful gate, which reads a single run. */
export function baselineRecordCount(config: Workspace['config']): number {
  return config.gate.policy === 'flips' ? 1 : config.gate.baselineRecords;
}
