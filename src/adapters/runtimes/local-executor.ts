import { bundleEnvironment, loadBlueprint } from '../blueprint/load.ts';
import { startRuntime } from './index.ts';
import type { CaseTrialExecutor, LocalExecutorDeps } from '../../domain/ports/case-trial-executor.ts';

/** Case-trials in this process, `concurrency` at a time. */
export function localExecutor(deps: LocalExecutorDeps): CaseTrialExecutor {
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
