import path from 'node:path';
import { systemClock, type Clock } from '../domain/clock.ts';
import type { Reporter } from '../domain/progress.ts';
import { AgentdevelError } from '../domain/errors.ts';
import { claudeEngines } from '../engine/claude.ts';
import { createModelPort } from '../engine/index.ts';
import { currentRoleFacts } from '../engine/runtime-facts.ts';
import type { RunContext, UsageScope } from '../pipeline/execute-run.ts';
import { openWorkspace, type Workspace } from '../pipeline/workspace.ts';
import { makeRedactor, secretValues, type Redactor } from '../process/environment.ts';
import { defaultCoordinatorSettings, queueExecutor } from '../queue/executor.ts';
import { parseQueueUrl, queueSecrets } from '../queue/url.ts';
import { createOutput, createReporter, type Output } from './render.ts';

export interface CommonOptions {
  readonly C?: string;
  readonly json?: boolean;
  readonly wait?: string;
  readonly record?: string;
  readonly replay?: string;
  /** Overrides `trials` of the config for this command. */
  readonly trials?: string;
  /** Runs case-trials on workers through this Redis queue (overrides `queue` of the config). */
  readonly queue?: string;
}

export function parseTrials(value: string | undefined): number | null {
  if (value === undefined) return null;
  const trials = Number(value);
  if (!Number.isInteger(trials) || trials < 1 || trials > 32) {
    throw new AgentdevelError('USAGE', `--trials: expected a whole number from 1 to 32, got "${value}"`);
  }
  return trials;
}

/** --wait SECONDS: how long a writer waits for the workspace lock (a bound: at most a day). */
export function parseWait(value: string | undefined): number {
  if (value === undefined) return 0;
  const seconds = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 86_400) {
    throw new AgentdevelError('USAGE', `--wait: expected a number of seconds from 0 to 86400, got "${value}"`);
  }
  return seconds * 1000;
}

export interface Io {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly clock: Clock;
}

export const processIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  clock: systemClock,
});

/** The commands that run case-trials, and so may send them to a queue. */
const RUNS_CASE_TRIALS = new Set(['run', 'iterate', 'gate', 'calibrate', 'evaluate-test']);

const mockOnly = { agent: 'mock', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock' } as const;

export interface CommandContext {
  readonly workspace: Workspace;
  readonly run: RunContext;
  readonly output: Output;
  readonly reporter: Reporter;
  readonly redact: Redactor;
  close(): Promise<void>;
}

export function presentation(io: Io, options: CommonOptions): { output: Output; reporter: Reporter; redact: Redactor } {
  const redact = makeRedactor([...secretValues(io.env), ...queueSecrets(options.queue)]);
  const output = createOutput(options.json === true, redact, io.stdout);
  const reporter = createReporter(io.stderr, redact, { tty: io.stderr.isTTY === true && io.env.CI !== 'true' });
  return { output, reporter, redact };
}

export function workspaceDir(io: Io, options: CommonOptions): string {
  return path.resolve(io.cwd, options.C ?? '.');
}

/** Opens the workspace named by -C (default: the current directory) for one command. */
export async function openCommand(io: Io, options: CommonOptions, lockFor: string | null): Promise<CommandContext> {
  const { output, reporter, redact } = presentation(io, options);
  const waitMs = parseWait(options.wait);
  const trials = parseTrials(options.trials);
  const opened = await openWorkspace(workspaceDir(io, options), {
    lock: lockFor ? { command: lockFor, waitMs } : null,
    clock: io.clock,
  });
  const workspace: Workspace = trials === null ? opened : { ...opened, config: { ...opened.config, trials } };
  try {
    if (options.record && options.replay) throw new AgentdevelError('USAGE', '--record and --replay cannot be used together');
    const cassetteDir = options.record ?? options.replay;
    const usageScope: UsageScope = { iteration: null, runId: null };
    const claude = claudeEngines({
      env: io.env,
      settings: workspace.config.anthropic,
      cassette: cassetteDir ? { mode: options.record ? 'record' : 'replay', dir: path.resolve(io.cwd, cassetteDir) } : null,
      ledger: (role, model, usage) => workspace.store.recordModelCall(role, model, usage, usageScope),
      facts: currentRoleFacts(io.clock),
    });
    // Only writers call models; `log` must work without an API key.
    const model = lockFor ? createModelPort(workspace.config.models, { claude }) : createModelPort(mockOnly, { claude: null });
    const queueUrl = options.queue ?? workspace.config.queue;
    const executor = queueUrl
      ? queueExecutor(parseQueueUrl(queueUrl, options.queue ? '--queue' : 'queue (agentdevel.config.json)'), defaultCoordinatorSettings, {
          ledger: (role, model, usage) => workspace.store.recordModelCall(role, model, usage, usageScope),
        })
      : null;
    // Redis unreachable is reported at once (exit 3), not after a reused baseline and a synthesis.
    if (executor && lockFor !== null && RUNS_CASE_TRIALS.has(lockFor)) await executor.ready();
    return {
      workspace,
      output,
      reporter,
      redact,
      run: { workspace, model, reporter, redact, clock: io.clock, parentEnv: io.env, usageScope, ...(executor ? { executor } : {}) },
      close: async () => {
        try {
          await executor?.close();
        } finally {
          await workspace.close();
        }
      },
    };
  } catch (error) {
    await workspace.close();
    throw error;
  }
}
