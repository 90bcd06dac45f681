// Fetches and pushes of refs to a remote: without prompting for credentials, within a bound,
// and with git's own words when one fails (what it refused and why), never only an exit code.
import { redactUrlPasswords } from '../../domain/environment.ts';
import { ambientEnvironment } from '../process/ambient-environment.ts';
import { runProcess } from '../process/runner.ts';
import { definedEnvironment } from './git-process.ts';

/**
 * The lines of git's stderr that say what went wrong (errors, refusals, rejected refs, and what
 * the remote itself said: a hook's "remote: <reason>" is why it refused), at most a few.
 */
export function gitComplaint(stderr: string): string {
  // The remote's words arrive as they were written: control characters (terminal escapes) are shown, not obeyed.
  const lines = stderr.split(/\r?\n|\r/).map((l) => l.trimEnd().replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?')).filter((l) => l.trim() !== '');
  const said = lines.filter((l) => /^(fatal|error|warning):|^remote:\s*\S|^\s*!\s|\[rejected\]|\(non-fast-forward\)|\(would clobber/.test(l));
  // A URL with credentials in it (https://user:token@host) keeps them out of the message.
  return redactUrlPasswords((said.length > 0 ? said : lines.slice(-3)).slice(0, 8).map((l) => l.trim()).join('; '));
}

/**
 * Runs `git fetch` or `git push` of `args` against a remote. Returns why it failed (git's words,
 * credentials in URLs redacted), or null. Not --quiet: quiet drops the lines that name a
 * rejected ref, which are the ones a user needs.
 */
export async function transferRefs(root: string, verb: 'fetch' | 'push', remote: string, args: readonly string[], timeoutMs: number): Promise<string | null> {
  const outcome = await runProcess({
    command: 'git',
    // An atomic push: when the remote refuses one ref (the line moved there meanwhile), none moves,
    // so a release tag never arrives without the line that holds its commit.
    args: verb === 'fetch' ? ['fetch', '--no-write-fetch-head', '--no-progress', remote, ...args] : ['push', '--no-progress', '--atomic', remote, ...args],
    cwd: root,
    // The user's own environment (SSH agent, credential helpers), but never a prompt.
    env: { ...definedEnvironment(), GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: ambientEnvironment().GIT_SSH_COMMAND ?? `ssh -o BatchMode=yes -o ConnectTimeout=${Math.max(1, Math.ceil(timeoutMs / 1000))}` },
    timeoutMs,
  });
  if (outcome.exitCode === 0) return null;
  if (outcome.spawnError) return outcome.spawnError;
  if (outcome.timedOut) return `no answer within ${timeoutMs / 1000} s`;
  return gitComplaint(outcome.stderr) || `exit ${outcome.exitCode}`;
}
