import { bundleEnvironment, loadBlueprint } from '../../adapters/blueprint/load.ts';
import { startRuntime } from '../../adapters/runtimes/index.ts';
import type { Runtime } from '../../domain/ports/runtime.ts';
import type { Config } from '../../config/schema.ts';
import type { ModelPort } from '../../domain/ports/model.ts';
import type { Task } from '../../adapters/task/load.ts';

/** One version to run case-trials of: its checkout, its task, and where its bundles go. */
export interface VersionToRun {
  readonly commit: string;
  readonly dir: string;
  readonly task: Task;
  readonly config: Config;
  readonly buildDir: string;
}

/** What runs the case-trials of a version, and how many may be in flight at once. */
export interface CaseTrials {
  readonly runtime: Runtime;
  readonly concurrency: number;
}

/**
 * Where case-trials execute: in this process (local) or on workers (queue). The seam is the
 * runtime: scoring, the critic, the store, the traces and git stay with the caller either way.
 */
export interface CaseTrialExecutor {
  /** Resolves once case-trials can be sent (the queue is reachable), so a command fails before it records anything. */
  ready(): Promise<void>;
  start(version: VersionToRun): Promise<CaseTrials>;
  close(): Promise<void>;
}

/** Case-trials in this process, `config.concurrency` at a time. */
export function localExecutor(deps: { readonly model: ModelPort; readonly parentEnv: Readonly<Record<string, string | undefined>> }): CaseTrialExecutor {
  return {
    ready: async () => undefined,
    start: async ({ dir, task, config, buildDir }) => {
      const blueprint = await loadBlueprint(dir, config.blueprint, buildDir);
      const environmentBundle = task.environmentModule ? await bundleEnvironment(task.environmentModule, buildDir, dir) : null;
      const runtime = await startRuntime({
        blueprint,
        environmentBundle,
        model: deps.model,
        agentModel: config.models.agent,
        callTimeoutMs: config.sandbox.timeoutMs,
        memoryMb: config.sandbox.memoryMb,
        passEnv: config.command.passEnv,
        gradingPaths: task.gradingPaths,
        parentEnv: deps.parentEnv,
        concurrency: config.concurrency,
      });
      return { runtime, concurrency: config.concurrency };
    },
    close: async () => undefined,
  };
}
