// git as a process: every git command of the git adapters, bounded in time and in output, in
// git's own environment; the reading of its end (exit 1 is an answer for some: absent, no), and
// the small parsers the adapters share. Only src/adapters/git/ uses it.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { ambientEnvironment } from '../process/ambient-environment.ts';
import { runProcess, type ProcessOutcome } from '../process/runner.ts';
import type { WorktreeEntry } from '../../domain/ports/repository.ts';

export function gitFailure(action: string, error: unknown): AgentdevelError {
  const message = error instanceof Error ? error.message.trim().split('\n').slice(0, 3).join(' ') : String(error);
  return new AgentdevelError('GIT_FAILED', `git ${action} failed: ${message}`, { cause: error });
}

/** A bound on every git command: no wait on a child is unbounded. Generous, since a checkout of a large repository takes a while. */
export const GIT_TIMEOUT_MS = 10 * 60_000;
/** A bound on what one git command may print (the listing of a large repository's tree is tens of MB). */
const GIT_OUTPUT_MAX_BYTES = 256 * 1024 * 1024;

/**
 * What git may need of agentdevel's environment, and nothing else: where git, the user's config
 * and the user's signing agent are. A user who signs commits or tags (`commit.gpgSign`, with
 * gpg or with an SSH key in ssh-agent) gets signed RC commits and release tags as from any git:
 * these name sockets and folders, not secrets, and a process of the same user could find them
 * anyway. No API key or token is among them.
 */
const GIT_VARIABLES = [
  'HOME',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_CONFIG_GLOBAL',
  'XDG_CONFIG_HOME',
  // Signing: ssh-agent, gpg-agent (its socket under XDG_RUNTIME_DIR or GNUPGHOME) and the pinentry's display.
  'SSH_AUTH_SOCK',
  'GNUPGHOME',
  'GPG_TTY',
  'XDG_RUNTIME_DIR',
  'DISPLAY',
  'WAYLAND_DISPLAY',
];

/** The environment of every git command but fetches and pushes: enough to find git, the user's git config and signing agent, nothing else. */
export function gitEnvironment(): Record<string, string> {
  const ambient = ambientEnvironment();
  const env: Record<string, string> = { PATH: ambient.PATH ?? '/usr/bin:/bin', GIT_TERMINAL_PROMPT: '0' };
  for (const name of GIT_VARIABLES) {
    const value = ambient[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

export function definedEnvironment(): Record<string, string> {
  return Object.fromEntries(Object.entries(ambientEnvironment()).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** A git command whose exit 1 means "no" or "absent" (rev-parse --verify --quiet, merge-base, …). */
export type Probe = { readonly found: true; readonly stdout: string } | { readonly found: false };

export type { WorktreeEntry };

/** Runs git with the plumbing environment, bounded; the outcome, whatever the exit. */
export function execGit(args: readonly string[], dir: string, identity: readonly string[], input?: string): Promise<ProcessOutcome> {
  // Paths in git's text come out as they are named (UTF-8), not quoted with octal escapes: the
  // patches kept as evidence and git's own messages show a name with an accent as it is. (The
  // reads that parse paths use -z, where git never quotes.)
  const config = ['core.quotePath=false', ...identity].flatMap((c) => ['-c', c]);
  // At an interrupt git is asked to end, not killed: it removes its lock files (index.lock) first.
  return runProcess({ command: 'git', args: [...config, ...args], cwd: dir, env: gitEnvironment(), ...(input === undefined ? {} : { input }), timeoutMs: GIT_TIMEOUT_MS, maxOutputBytes: GIT_OUTPUT_MAX_BYTES, atExit: 'terminate' });
}

/** Why a git command did not succeed, in git's own words where it gave some. */
export function failureOf(outcome: ProcessOutcome): Error {
  return new Error(outcome.spawnError ?? (outcome.timedOut ? `timed out after ${GIT_TIMEOUT_MS / 1000} s` : outcome.stderr.trim() || `exit ${outcome.exitCode ?? outcome.signal}`));
}

export function probeOutcome(args: readonly string[], outcome: ProcessOutcome): Probe {
  if (outcome.exitCode === 0) return { found: true, stdout: outcome.stdout };
  if (outcome.exitCode === 1 && !outcome.timedOut) return { found: false };
  throw gitFailure(args[0] ?? 'command', failureOf(outcome));
}

export function parseWorktrees(porcelain: string): WorktreeEntry[] {
  return porcelain
    .split('\n\n')
    .map((block) => block.split('\n').filter(Boolean))
    .filter((lines) => lines.length > 0)
    .map((lines) => ({
      path: (lines.find((l) => l.startsWith('worktree ')) ?? 'worktree ').slice('worktree '.length),
      locked: lines.some((l) => l === 'locked' || l.startsWith('locked ')),
    }));
}

export async function pathExists(file: string): Promise<boolean> {
  try {
    await realpath(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** A path as git and we both spell it: symlinks in its existing part resolved (/tmp on macOS). */
export async function comparablePath(file: string): Promise<string> {
  const absolute = path.resolve(file);
  const missing: string[] = [];
  for (let existing = absolute; ; existing = path.dirname(existing)) {
    try {
      return path.join(await realpath(existing), ...missing.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || existing === path.dirname(existing)) throw error;
      missing.push(path.basename(existing));
    }
  }
}

