// The ScorerScriptRunner port (domain/ports/scorer-scripts.ts): a task's scorer script as a child process.
import type { ScorerScriptRunner } from '../../domain/ports/scorer-scripts.ts';
import { runProcess } from './runner.ts';

export const runScorerScript: ScorerScriptRunner = async (run) => {
  const { exitCode, stdout, stderr, timedOut } = await runProcess({ command: run.command, args: run.args, cwd: run.cwd, env: { ...run.env }, input: run.input, timeoutMs: run.timeoutMs });
  return { exitCode, stdout, stderr, timedOut };
};
