import { bundleEnvironment, loadBlueprint } from '../../adapters/blueprint/load.ts';
import { startRuntime } from '../../adapters/runtimes/index.ts';
import type { Config } from '../../config/schema.ts';
import type { CaseTrialExecutor, CaseTrialSettings } from '../../domain/ports/case-trial-executor.ts';
import type { ModelPort } from '../../domain/ports/model.ts';

/** What an executor reads of a version's config. */
export function caseTrialSettings(config: Config): CaseTrialSettings {
  return {
    blueprint: config.blueprint,
    task: config.task,
    agentModel: config.models.agent,
    callTimeoutMs: config.sandbox.timeoutMs,
    memoryMb: config.sandbox.memoryMb,
    isolation: config.sandbox.isolation,
    passEnv: config.command.passEnv,
    concurrency: config.concurrency,
  };
}

/** Case-trials in this process, `concurrency` at a time. */
export function localExecutor(deps: { readonly model: ModelPort; readonly parentEnv: Readonly<Record<string, string | undefined>> }): CaseTrialExecutor {
  return {
    ready: async () => undefined,
    start: async ({ dir, task, settings, buildDir }) => {
      const blueprint = await loadBlueprint(dir, settings.blueprint, buildDir);
      const environmentBundle = task.environmentModule ? await bundleEnvironment(task.environmentModule, buildDir, dir) : null;
      const runtime = await startRuntime({
        blueprint,
        environmentBundle,
        model: deps.model,
        agentModel: settings.agentModel,
        callTimeoutMs: settings.callTimeoutMs,
        memoryMb: settings.memoryMb,
        isolation: settings.isolation,
        passEnv: settings.passEnv,
        gradingPaths: task.gradingPaths,
        parentEnv: deps.parentEnv,
        concurrency: settings.concurrency,
      });
      return { runtime, concurrency: settings.concurrency };
    },
    close: async () => undefined,
  };
}
