// The library entry point (package.json "exports"): run, gate, compare and iterate for programs
// that drive agentdevel without its CLI. Each call opens the workspace, holds its lock like the
// CLI would, and closes it. Progress goes nowhere unless `progress` is given. Paths (`dir`,
// `summary`, `junit`, `reportDir`) are resolved as the CLI resolves them: against the current
// directory of the process. A failure is thrown as the CLI names it: an AgentdevelError with its
// catalogue code, message and hint (app/command-end.ts), not the raw error of a model or a driver.
import path from 'node:path';
import { Writable } from 'node:stream';
import { writeGateOutputs, writeRunJunit } from './app/ci-outputs.ts';
import { catalogueErrorOf } from './app/command-end.ts';
import { openCommand, processPlace, workspaceDir, type CommandPlace } from './app/compose.ts';
import type { GateDecision, ReleaseOutcome } from './domain/decision.ts';
import type { HumanChange } from './domain/human-change.ts';
import { passRateOf } from './domain/case-summary.ts';
import { AgentdevelError } from './domain/errors.ts';
import { runTrainSplit } from './pipeline/run/train-run.ts';
import { gateCandidate } from './pipeline/gate/submitted-candidate.ts';
import { iterate as iterateLine, type IterateOutcome } from './pipeline/loop/iterate.ts';
import { openStoreWorkspace } from './app/workspace.ts';
import { failingCasesFrom, type CaseReason } from './stages/report/case-reasons.ts';
import { decideOnRecordedRuns } from './stages/gate/compare.ts';

export interface WorkspaceOptions {
  /** The workspace (a git repository with agentdevel.config.json), relative to the current directory or absolute, like `-C`. */
  readonly dir: string;
  /** Where progress lines go (default: nowhere). */
  readonly progress?: NodeJS.WritableStream;
}

function ioFor(options: WorkspaceOptions): CommandPlace {
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  const base = processPlace();
  // `dir` is the CLI's -C: resolved against the process's current directory, never against itself.
  return { ...base, stderr: (options.progress ?? discard) as NodeJS.WriteStream };
}

/** A library call whose failure is thrown as the catalogue error the CLI would print for it, when there is one. */
function named<Options, Result>(call: (options: Options) => Promise<Result>): (options: Options) => Promise<Result> {
  return async (options) => {
    try {
      return await call(options);
    } catch (error) {
      throw (await catalogueErrorOf(error)) ?? error;
    }
  };
}

export interface RunSummary {
  readonly runId: string;
  readonly passRate: number;
  readonly failing: readonly CaseReason[];
  /** True only when the mock engine played the agent. */
  readonly simulated: boolean;
  /** The JUnit file written (the `junit` option), else null. */
  readonly junit: string | null;
}

export interface RunOptions extends WorkspaceOptions {
  /** A branch, tag or commit to run instead of the working tree. */
  readonly ref?: string;
  readonly trials?: number;
  /** Only these train cases (like `run --case`). */
  readonly cases?: readonly string[];
  /** Write JUnit XML here (like `run --junit`). */
  readonly junit?: string;
}

/** Runs the working tree (or `ref`) over the train split, or only the cases named. */
async function runTrain(options: RunOptions): Promise<RunSummary> {
  const io = ioFor(options);
  const command = await openCommand(io, { C: options.dir, ...(options.trials ? { trials: String(options.trials) } : {}) }, 'run');
  try {
    const { workspace } = command;
    const result = await runTrainSplit(command.pipelineContext, { ref: options.ref ?? null, cases: options.cases ?? [] });
    return {
      runId: result.runId,
      passRate: passRateOf(result.counts),
      failing: failingCasesFrom(workspace.store.eachRecord(result.runId, { notable: true }), result.cases),
      simulated: result.simulated,
      junit: await writeRunJunit(io, options, workspace, result),
    };
  } finally {
    await command.close();
  }
}

export interface GateSummary {
  readonly outcome: ReleaseOutcome;
  readonly tag: string | null;
  readonly decision: GateDecision;
  /** Files a dry gate wrote to `reportDir`. */
  readonly reports: readonly string[];
  readonly simulated: boolean;
  /** What a person's change touched beyond the blueprint, and how the gate treated it (null: the blueprint alone). */
  readonly change: HumanChange | null;
  /** The summary files written: the `summary` option's, and $GITHUB_STEP_SUMMARY on GitHub Actions. */
  readonly summary: readonly string[];
  /** The JUnit file written (the `junit` option), else null. */
  readonly junit: string | null;
}

export interface GateOptions extends WorkspaceOptions {
  /** The branch, tag or commit to gate. */
  readonly candidate: string;
  /** Record it on the line: promote it when accepted, record the rejection otherwise. */
  readonly promote?: boolean;
  /** Symptom labels the change intends to fix (enables the hit-rate check). */
  readonly targets?: readonly string[];
  /** Where a gate without `promote` writes its reports (a folder per candidate below it); none when absent. */
  readonly reportDir?: string;
  /** Write the pull request summary (markdown) here, like `gate --summary`. */
  readonly summary?: string;
  /** Write JUnit XML here, like `gate --junit`. */
  readonly junit?: string;
  /** Gate against this commit instead of the current release, like `gate --baseline` (a change merged into the line without a gate). */
  readonly baseline?: string;
  /** Let a change to the sealed test split through, like `gate --reseal-test`; otherwise it is refused. */
  readonly resealTest?: boolean;
}

/** Gates a candidate (branch, tag or commit) against the current release; `promote` records it on the line. */
async function gateRef(options: GateOptions): Promise<GateSummary> {
  const io = ioFor(options);
  const command = await openCommand(io, { C: options.dir }, 'gate');
  try {
    const result = await gateCandidate(command.pipelineContext, {
      ref: options.candidate,
      promote: options.promote === true,
      targets: options.targets ?? [],
      reportDir: options.promote || options.reportDir === undefined ? null : path.resolve(io.cwd, options.reportDir),
      allowBehind: false,
      baseline: options.baseline ?? null,
      resealTest: options.resealTest === true,
    });
    const written = await writeGateOutputs(io, options, command.workspace, result);
    return { outcome: result.outcome, tag: result.tag, decision: result.decision, reports: result.reportFiles, simulated: result.simulated, change: result.evidence.change ?? null, ...written };
  } finally {
    await command.close();
  }
}

/** Compares two recorded runs (names or ids) with the gate's own code. */
async function compareRecorded(options: WorkspaceOptions & { readonly baseline: string; readonly candidate: string }): Promise<GateDecision> {
  const io = ioFor(options);
  const workspace = await openStoreWorkspace(workspaceDir(io, { C: options.dir }), io.clock, null);
  try {
    const runs = [options.baseline, options.candidate].map((name) => {
      const found = workspace.store.findRun(name);
      if (!found) throw new AgentdevelError('USAGE', `no run named or numbered "${name}" in ${workspace.root}`);
      return found;
    });
    const [baseline, candidate] = runs as [(typeof runs)[0], (typeof runs)[0]];
    return decideOnRecordedRuns({
      baseline: workspace.store.caseSummaries(baseline.id),
      candidate: workspace.store.caseSummaries(candidate.id),
      policy: workspace.policy,
      noise: { variedCases: workspace.store.variedCases(baseline.taskTree) },
      intent: null,
    }).decision;
  } finally {
    await workspace.close();
  }
}

/** The release loop until a stop condition (or `maxIterations`). */
async function iterateLoop(options: WorkspaceOptions & { readonly maxIterations?: number }): Promise<IterateOutcome> {
  const command = await openCommand(ioFor(options), { C: options.dir }, 'iterate');
  try {
    return await iterateLine(command.pipelineContext, { maxIterations: options.maxIterations ?? null });
  } finally {
    await command.close();
  }
}

/** Runs the working tree (or `ref`) over the train split, or only the cases named. */
export const run = named(runTrain);
/** Gates a candidate (branch, tag or commit) against the current release; `promote` records it on the line. */
export const gate = named(gateRef);
/** Compares two recorded runs (names or ids) with the gate's own code. */
export const compare = named(compareRecorded);
/** The release loop until a stop condition (or `maxIterations`). */
export const iterate = named(iterateLoop);
