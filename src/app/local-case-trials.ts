import type { CaseTrialExecutor, LocalExecutorFactory } from '../domain/ports/case-trial-executor.ts';

/**
 * The in-process executor, its runtimes loaded at its first use: a command that never runs a
 * case-trial (`log`, `show`, a reused run) never loads the agent runtimes.
 */
export const localCaseTrials: LocalExecutorFactory = (deps) => {
  let made: Promise<CaseTrialExecutor> | null = null;
  const executor = (): Promise<CaseTrialExecutor> => (made ??= import('../adapters/runtimes/local-executor.ts').then(({ localExecutor }) => localExecutor(deps)));
  return {
    ready: async () => (await executor()).ready(),
    start: async (version) => (await executor()).start(version),
    close: async () => {
      if (made) await (await made).close();
    },
  };
};
