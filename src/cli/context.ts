import path from 'node:path';
import type { Reporter } from '../domain/progress.ts';
import { ensureScratchBranch, scratchConfig } from '../pipeline/scratch-line.ts';
import { AgentdevelError } from '../domain/errors.ts';
import type { RunContext, UsageScope } from '../pipeline/execute-run.ts';
import { openWorkspace, type Workspace } from '../pipeline/workspace.ts';
import { makeRedactor, secretValues, type Redactor } from '../process/environment.ts';
import { parseQueueUrl, queueSecrets } from '../queue/url.ts';
import { parseTrials, parseWait, type CommonOptions, type Io } from './io.ts';
import { createOutput, createReporter, type Output } from './render.ts';

export { parseTrials, parseWait, processIo, type CommonOptions, type Io } from './io.ts';

/** The commands that run case-trials, and so may send them to a queue. */
const RUNS_CASE_TRIALS = new Set(['run', 'iterate', 'gate', 'shadow', 'calibrate', 'evaluate-test']);

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
  let workspace: Workspace = trials === null ? opened : { ...opened, config: { ...opened.config, trials } };
  try {
    if (options.line !== undefined) {
      workspace = { ...workspace, config: scratchConfig(workspace.config, options.line) };
      // A writer starts the scratch line from the real line's tip; a reader only reads what is there.
      if (lockFor) await ensureScratchBranch(workspace, opened.config.line.branch);
    }
    if (options.record && options.replay) throw new AgentdevelError('USAGE', '--record and --replay cannot be used together');
    const usageScope: UsageScope = { iteration: null, runId: null };
    // The engines (prompt templates, the SDK) are loaded only by the commands that call models.
    const { createModelPort } = await import('../engine/index.ts');
    // Only writers call models; `log` must work without an API key.
    const model = lockFor ? createModelPort(workspace.config.models, { claude: await claudeFor(io, options, workspace, usageScope) }) : createModelPort(mockOnly, { claude: null });
    const queueUrl = options.queue ?? workspace.config.queue;
    // The queue (bullmq, Redis) is loaded only when one is named.
    const executor = queueUrl
      ? await import('../queue/executor.ts').then(({ defaultCoordinatorSettings, queueExecutor }) =>
          queueExecutor(parseQueueUrl(queueUrl, options.queue ? '--queue' : 'queue (agentdevel.config.json)'), defaultCoordinatorSettings, {
            ledger: (role, model, usage) => workspace.store.recordModelCall(role, model, usage, usageScope),
          }),
        )
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

async function claudeFor(io: Io, options: CommonOptions, workspace: Workspace, usageScope: UsageScope) {
  const [{ claudeEngines }, { currentRoleFacts }] = await Promise.all([import('../engine/claude.ts'), import('../engine/runtime-facts.ts')]);
  const cassetteDir = options.record ?? options.replay;
  return claudeEngines({
    env: io.env,
    settings: workspace.config.anthropic,
    cassette: cassetteDir ? { mode: options.record ? 'record' : 'replay', dir: path.resolve(io.cwd, cassetteDir) } : null,
    ledger: (role, model, usage) => workspace.store.recordModelCall(role, model, usage, usageScope),
    facts: currentRoleFacts(io.clock),
  });
}
