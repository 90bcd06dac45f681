// Where case-trials execute: in this process (pipeline/run/case-trial-executor.ts) or on workers
// (adapters/queue/executor.ts). The seam is the runtime: scoring, the critic, the store, the
// traces and git stay with the caller either way.
import type { Task } from '../task.ts';
import type { Runtime } from './runtime.ts';
import type { ModelPort } from './model.ts';

/** How a version's case-trials run: the values of its config that an executor reads. */
export interface CaseTrialSettings {
  /** The blueprint's folder name under blueprints/. */
  readonly blueprint: string;
  /** The task's folder name under rubrics/. */
  readonly task: string;
  readonly agentModel: string;
  /** The sandbox's time limit of a call and a tool host's memory (config `sandbox.timeoutMs`, `sandbox.memoryMb`). */
  readonly callTimeoutMs: number;
  readonly memoryMb: number;
  /** Tool hosts shared by case-trials, or one per case-trial (config `sandbox.isolation`). */
  readonly isolation: 'shared' | 'case';
  /** The names of the environment variables passed to the agent (config `command.passEnv`). */
  readonly passEnv: readonly string[];
  /** How many case-trials run at once in this process (config `concurrency`). */
  readonly concurrency: number;
}

/** One version to run case-trials of: its checkout, its task, and where its bundles go. */
export interface VersionToRun {
  readonly commit: string;
  readonly dir: string;
  readonly task: Task;
  readonly settings: CaseTrialSettings;
  readonly buildDir: string;
}

/** What runs the case-trials of a version, and how many may be in flight at once. */
export interface CaseTrials {
  readonly runtime: Runtime;
  readonly concurrency: number;
  /**
   * The same runtime for a run asked to be fresh (`--fresh`, a gate's confirmation trials): it
   * takes no result an earlier run left where results are kept by content (the queue's finished
   * jobs), and runs every case-trial now. Absent where nothing is kept (a local run: the store's
   * reuse is decided before).
   */
  readonly afresh?: Runtime;
}

/** Where case-trials execute: in this process (local) or on workers (queue). */
export interface CaseTrialExecutor {
  /** Resolves once case-trials can be sent (the queue is reachable), so a command fails before it records anything. */
  ready(): Promise<void>;
  start(version: VersionToRun): Promise<CaseTrials>;
  /**
   * For a command interrupted (Ctrl-C, SIGTERM): takes back the case-trials sent and not started
   * yet, so that no worker runs them for nobody; those running finish and leave their results
   * for a later run to collect. Resolves with how many were taken back. Absent where case-trials
   * end with the process (a local run).
   */
  readonly withdraw?: () => Promise<number>;
  close(): Promise<void>;
}

/** What case-trials in this process need: the model port the agent calls (the version's), and the environment its tools may be given. */
export interface LocalExecutorDeps {
  readonly model: ModelPort;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
}

/** Makes the in-process executor (adapters/runtimes/local-executor.ts), for a run that has no other. */
export type LocalExecutorFactory = (deps: LocalExecutorDeps) => CaseTrialExecutor;
