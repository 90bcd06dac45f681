// The options every command is opened with (-C, --wait, --trials, --queue, --line, --record,
// --replay), checked as app/compose reads them, and the test hook's checkpoint from the
// environment. Light: the command line's parsing imports it before anything heavy loads.
import path from 'node:path';
import { AgentdevelError } from '../domain/errors.ts';
import { CHECKPOINT_MOMENTS, noCheckpoint, type Checkpoint, type CheckpointMoment } from '../domain/ports/checkpoint.ts';
import { pauseAt } from '../adapters/checkpoint/test-pause.ts';

/** The options a command is opened with, as the command line gives them (the library passes the same). */
export interface CommandOptions {
  readonly C?: string;
  readonly wait?: string;
  readonly record?: string;
  readonly replay?: string;
  /** Overrides `trials` of the config for this command. */
  readonly trials?: string;
  /** Overrides `concurrency` of the config for this command (case-trials run at once). */
  readonly concurrency?: string;
  /** Runs case-trials on workers through this Redis queue (overrides `queue` of the config). */
  readonly queue?: string;
  /** Works on the scratch line of this name instead of the real line (iterate, log). */
  readonly line?: string;
  /** Most the command may spend on model requests (overrides `budget` of the config): "0.50usd" or "300req". */
  readonly budget?: string;
}

/** A whole-number option within its bounds; null when it was not given. */
function wholeNumberOption(option: string, value: string | undefined, min: number, max: number): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new AgentdevelError('USAGE', `${option}: expected a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

/** --trials K: trials per case, within the config's own bounds (1 to 32). */
export const parseTrials = (value: string | undefined): number | null => wholeNumberOption('--trials', value, 1, 32);

/** --concurrency N: case-trials run at once, within the config's own bounds (1 to 64). */
export const parseConcurrency = (value: string | undefined): number | null => wholeNumberOption('--concurrency', value, 1, 64);

/** --wait SECONDS: how long a writer waits for the workspace lock (a bound: at most a day). */
export function parseWait(value: string | undefined): number {
  if (value === undefined) return 0;
  const seconds = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 86_400) {
    throw new AgentdevelError('USAGE', `--wait: expected a number of seconds from 0 to 86400, got "${value}"`);
  }
  return seconds * 1000;
}

/**
 * --timeout SECONDS: the bound of a remote call, from sending it to the last byte of its answer
 * (`comment`, `export --otlp`); `defaultSeconds` when absent, at most an hour.
 */
export function parseTimeout(value: string | undefined, defaultSeconds: number): number {
  if (value === undefined) return defaultSeconds * 1000;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds > 0 && seconds <= 3600)) throw new AgentdevelError('USAGE', `--timeout: expected a number of seconds above 0, at most 3600, got "${value}"`);
  return seconds * 1000;
}

const isMoment = (text: string): text is CheckpointMoment => (CHECKPOINT_MOMENTS as readonly string[]).includes(text);

/**
 * The test hook, for tests that kill a command at a named moment (never set in production):
 * AGENTDEVEL_TEST_PAUSE_AT names one of CHECKPOINT_MOMENTS, and the command, on reaching it,
 * writes the file AGENTDEVEL_TEST_PAUSE_FILE and pauses there until it is killed. Unset, the
 * checkpoint does nothing. This is the only place that reads those variables.
 */
export function checkpointOf(io: { readonly env: Readonly<Record<string, string | undefined>>; readonly cwd: string }): Checkpoint {
  const at = io.env.AGENTDEVEL_TEST_PAUSE_AT;
  if (at === undefined || at === '') return noCheckpoint;
  const hint = 'AGENTDEVEL_TEST_PAUSE_AT is a hook for tests that kill a command at a named moment: unset it.';
  if (!isMoment(at)) throw new AgentdevelError('USAGE', `AGENTDEVEL_TEST_PAUSE_AT: expected one of ${CHECKPOINT_MOMENTS.join(', ')}, got "${at}"`, { hint });
  const file = io.env.AGENTDEVEL_TEST_PAUSE_FILE;
  if (!file) throw new AgentdevelError('USAGE', 'AGENTDEVEL_TEST_PAUSE_AT is set without AGENTDEVEL_TEST_PAUSE_FILE, the file written when the pause begins', { hint });
  return pauseAt(at, path.resolve(io.cwd, file));
}
