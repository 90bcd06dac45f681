import type { Config } from '../../config/schema.ts';
import type { CaseTrialSettings } from '../../domain/ports/case-trial-executor.ts';

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
