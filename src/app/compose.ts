import { providerOf } from '../domain/models.ts';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Reporter } from '../domain/ports/reporter.ts';
import { ensureScratchBranch, scratchConfig } from '../pipeline/workspace/scratch-line.ts';
import { AgentdevelError } from '../domain/errors.ts';
import type { PipelineContext } from '../pipeline/context.ts';
import { currentScope } from '../pipeline/run/usage-scope.ts';
import { openWorkspace } from './workspace.ts';
import { type Workspace } from '../pipeline/workspace/workspace.ts';
import type { Config } from '../config/schema.ts';
import { declareSecrets, makeRedactor, secretValues, valuesOf, type Redactor } from '../domain/environment.ts';
import { parseQueueUrl, queueSecrets } from '../domain/queue-address.ts';
import { wordDiff } from '../adapters/text-diff/word-diff.ts';
import { renderReportTemplate } from '../adapters/template/report-templates.ts';
import { blueprintCheckRunner } from '../adapters/process/blueprint-checks.ts';
import { runSandboxed } from '../adapters/process/sandbox.ts';
import { runScorerScript } from '../adapters/process/scorer-scripts.ts';
import type { PaceFor } from '../adapters/engines/anthropic/rate-limits.ts';
import { createReporter } from '../adapters/terminal/progress.ts';
import { ambientEnvironment } from '../adapters/process/ambient-environment.ts';
import { systemClock, type Clock } from '../domain/ports/clock.ts';
import { checkpointOf, parseConcurrency, parseTrials, parseWait, type CommandOptions } from './command-options.ts';
import { localCaseTrials } from './local-case-trials.ts';
import { parseBudget, spendGuard, type Budget, type SpendGuard } from '../domain/budget.ts';
import type { CallRole, Usage } from '../domain/ports/model.ts';
import type { UsageLedger } from '../adapters/engines/anthropic/adapter.ts';

/** The budget a command is held to; a budget in case-trials measures discover's rounds only. */
function commandBudget(text: string, where: string, command: string | null): Budget {
  const budget = parseBudget(text, where);
  if (budget.kind === 'caseTrials' && command !== 'discover') {
    throw new AgentdevelError('USAGE', `${where}: "${text}" is a budget in case-trials, which only discover's rounds measure; write dollars (e.g. 0.50usd) or model requests (e.g. ${budget.amount}req)`);
  }
  return budget;
}

/** The commands that run case-trials, and so may send them to a queue. */
const RUNS_CASE_TRIALS = new Set(['run', 'iterate', 'gate', 'shadow', 'calibrate', 'evaluate-test', 'discover']);

const mockOnly = { agent: 'mock', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock', judge: 'mock', writer: 'mock' } as const;

/** Where a command runs: its environment, folder and clock, and the stream its progress goes to (the CLI's Io is one). */
export interface CommandPlace {
  readonly stderr: NodeJS.WriteStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly clock: Clock;
}

/** This process as a command's place (the library's calls): its environment, folder and clock, progress on stderr. */
export function processPlace(): CommandPlace {
  return { stderr: process.stderr, env: ambientEnvironment(), cwd: process.cwd(), clock: systemClock };
}

/** A command opened on its workspace: the run context the pipeline takes, and how it reports and redacts. */
export interface OpenedCommand {
  readonly workspace: Workspace;
  /** What the command hands the pipeline (the workspace and every port it opened). */
  readonly pipelineContext: PipelineContext;
  readonly reporter: Reporter;
  readonly redact: Redactor;
  /** Makes sure the models the config names can be called (API_KEY_MISSING, exit 2, when not): for commands opened with `models: 'at_first_call'`. */
  requireModels(): void;
  /** With a queue, for an interrupted command: takes back the case-trials no worker has started (CaseTrialExecutor.withdraw); how many. */
  readonly withdraw?: () => Promise<number>;
  close(): Promise<void>;
}

/** A command's redactor (every secret of the environment and the queue URL's password) and its progress reporter on the place's stderr. */
export function commandReporting(place: CommandPlace, options: CommandOptions): { reporter: Reporter; redact: Redactor } {
  const secrets = [...secretValues(place.env), ...queueSecrets(options.queue)];
  // Declared, so that every redactor of this process knows them: the store's too, which redacts
  // whatever it writes (adapters/store/stored-text.ts).
  declareSecrets(secrets);
  const redact = makeRedactor(secrets);
  const reporter = createReporter(place.stderr, redact, { tty: place.stderr.isTTY === true && place.env.CI !== 'true' });
  return { reporter, redact };
}

/** The folder -C names (default: the current directory); a usage error (exit 2) when it is missing or not a folder. */
export function workspaceDir(place: { readonly cwd: string }, options: { readonly C?: string }): string {
  const dir = path.resolve(place.cwd, options.C ?? '.');
  const flag = options.C === undefined ? 'the current directory' : `-C ${options.C}`;
  let stat;
  try {
    stat = statSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    throw new AgentdevelError('USAGE', `${flag}: the folder ${dir} does not exist`, { hint: 'Pass -C the folder of a workspace (the top of its git repository).', cause: error });
  }
  if (!stat.isDirectory()) {
    throw new AgentdevelError('USAGE', `${flag}: ${dir} is a file, not a folder`, { hint: 'Pass -C the folder of a workspace (the top of its git repository).' });
  }
  return dir;
}

/** The config's references into the task (must-pass cases), checked against the working tree's train split. */
async function refuseConfigNamingNoCase(workspace: Workspace): Promise<void> {
  const { config, root } = workspace;
  if (!config.gate.layers.some((l) => l.layer === 'checks' && l.mustPass.length > 0)) return;
  const { refuseUnknownMustPass } = await import('../pipeline/gate/layer-evidence.ts');
  const { tasks } = workspace.files;
  // A task that does not load is reported by the command itself, with its own error.
  const cases = await tasks.loadTask(root, config.task).then((task) => tasks.loadSplit(task, 'train'), () => null);
  if (cases) refuseUnknownMustPass(config, cases);
}

/** Opens the workspace named by -C (default: the current directory) for one command. */
export async function openCommand(
  io: CommandPlace,
  options: CommandOptions,
  lockFor: string | null,
  models: 'at_start' | 'at_first_call' = 'at_start',
  store: 'reads' | 'unused' = 'reads',
): Promise<OpenedCommand> {
  const { reporter, redact } = commandReporting(io, options);
  const waitMs = parseWait(options.wait);
  const trials = parseTrials(options.trials);
  const concurrency = parseConcurrency(options.concurrency);
  // Checked before the workspace opens: a bad budget writes nothing.
  const budgetOption = options.budget === undefined ? null : commandBudget(options.budget, '--budget', lockFor);
  const opened = await openWorkspace(workspaceDir(io, options), {
    lock: lockFor ? { command: lockFor, waitMs } : null,
    clock: io.clock,
    readsStore: store === 'reads',
    checkpoint: checkpointOf(io),
    reporter,
    // A writer on a queue loads bullmq and ioredis (a fifth of a second of CPU) while the
    // workspace opens, which mostly waits on git; they are imported below as before.
    ...(lockFor ? { onConfig: (config: Config) => preloadQueueModules(options.queue ?? config.queue) } : {}),
  });
  let workspace: Workspace = trials === null && concurrency === null ? opened : { ...opened, config: { ...opened.config, ...(trials === null ? {} : { trials }), ...(concurrency === null ? {} : { concurrency }) } };
  // Every value passed to the agent and every declared secret is redacted, whatever its name.
  // The key variables the config names for openai roles are secrets whatever they are called.
  const keyVariables = Object.values(workspace.config.models.endpoints ?? {}).map((endpoint) => endpoint.apiKeyEnv);
  declareSecrets(valuesOf(io.env, [...workspace.config.command.passEnv, ...workspace.config.secrets, ...keyVariables]));
  let sharedPace: { close(): Promise<void>; readonly pace: PaceFor } | null = null;
  try {
    const budget = budgetOption ?? (workspace.config.budget === undefined ? null : commandBudget(workspace.config.budget, 'budget (agentdevel.config.json)', lockFor));
    // Every request of this command is held to the budget; the ledger's charges tell it what was spent.
    const guard = spendGuard(lockFor === null ? null : budget);
    const unpriced = new Set<string>();
    const charge = (role: CallRole, model: string, usage: Usage) => {
      // A model with no known price is said so once, never silently counted as free.
      if (usage.priceKnown === false && !unpriced.has(model)) {
        unpriced.add(model);
        reporter.emit({ type: 'warning', message: `${model} has no known price: its calls are counted in tokens, and at $0 in costs and budgets; set "price" on its role in models (USD per million input and output tokens)` });
      }
      guard.charge(role, usage.costUsd);
      workspace.store.recordModelCall(role, model, usage, currentScope());
    };
    // A must-pass entry that names no case is refused before anything runs (exit 2).
    if (lockFor !== null) await refuseConfigNamingNoCase(workspace);
    if (options.line !== undefined) {
      workspace = { ...workspace, config: scratchConfig(workspace.config, options.line) };
      // A writer starts the scratch line from the real line's tip; a reader only reads what is there.
      if (lockFor) await ensureScratchBranch(workspace, opened.config.line.branch);
    }
    if (options.record && options.replay) throw new AgentdevelError('USAGE', '--record and --replay cannot be used together');
    // The engines (prompt templates, the SDK) are loaded only by the commands that call models.
    const { createModelPort } = await import('../adapters/engines/index.ts');
    const queueUrl = options.queue ?? workspace.config.queue;
    const queueAddress = queueUrl ? parseQueueUrl(queueUrl, options.queue ? '--queue' : 'queue (agentdevel.config.json)') : null;
    // With a queue, this command's model calls keep one pace with the workers' (in the queue's Redis).
    sharedPace = lockFor && queueAddress ? await import('../adapters/queue/redis-pace.ts').then(({ openSharedPace }) => openSharedPace(queueAddress)) : null;
    const paceToClose = sharedPace;
    // Only writers call models; `log` must work without an API key.
    const claude = lockFor ? await claudeFor(io, options, workspace, models, sharedPace?.pace ?? null, guard, charge) : null;
    const openai = lockFor ? await openaiFor(io, options, workspace, sharedPace?.pace ?? null, guard, charge) : null;
    const model = claude ? createModelPort(workspace.config.models, { claude, openai }) : createModelPort(mockOnly, { claude: null });
    // The judge is asked only when credit.helpfulness is on (or by discover), the writer only by
    // discover: their default models need no key otherwise.
    const { judge, writer, endpoints: _endpoints, ...asked } = workspace.config.models;
    const usesClaude =
      Object.values(asked).some(onClaude) || ((workspace.config.credit.helpfulness || lockFor === 'discover') && onClaude(judge)) || (lockFor === 'discover' && onClaude(writer));
    // The queue (bullmq, Redis) is loaded only when one is named.
    const executor = queueAddress
      ? await import('../adapters/queue/executor.ts').then(({ defaultCoordinatorSettings, queueExecutor, queueKeyFrom }) =>
          queueExecutor(queueAddress, defaultCoordinatorSettings, {
            key: queueKeyFrom(io.env),
            ledger: charge,
            note: (message) => reporter.emit({ type: 'stage', stage: 'run', message }),
          }),
        )
      : null;
    // Redis unreachable is reported at once (exit 3), not after a reused baseline and a synthesis.
    if (executor && lockFor !== null && RUNS_CASE_TRIALS.has(lockFor)) await executor.ready();
    return {
      workspace,
      reporter,
      redact,
      requireModels: () => {
        if (claude && usesClaude) claude.ready();
      },
      ...(executor?.withdraw ? { withdraw: executor.withdraw } : {}),
      pipelineContext: {
        workspace,
        model,
        // A gate under the line's config asks the line's models, through the same engines.
        modelFor: (models) => (claude ? createModelPort(models, { claude, openai }) : createModelPort(mockOnly, { claude: null })),
        reporter,
        redact,
        clock: io.clock,
        parentEnv: io.env,
        checks: blueprintCheckRunner(io.env),
        sandbox: runSandboxed,
        scorerScripts: runScorerScript,
        localExecutor: localCaseTrials,
        budget: guard,
        textDiff: wordDiff,
        templates: renderReportTemplate,
        ...(trials === null && concurrency === null ? {} : { overrides: { ...(trials === null ? {} : { trials }), ...(concurrency === null ? {} : { concurrency }) } }),
        ...(executor ? { executor } : {}),
      },
      close: async () => {
        try {
          await executor?.close();
          await paceToClose?.close();
        } finally {
          await workspace.close();
        }
      },
    };
  } catch (error) {
    await sharedPace?.close();
    await workspace.close();
    throw error;
  }
}

/**
 * Starts loading the queue's modules when a queue is named; a failure to load is left to the
 * import that uses them, which reports it.
 */
function preloadQueueModules(queue: string | undefined | null): void {
  if (!queue) return;
  void import('../adapters/queue/executor.ts').catch(() => undefined);
  void import('../adapters/queue/redis-pace.ts').catch(() => undefined);
}

/** A role the Claude engine answers (an "openai:" role needs no Claude key). */
const onClaude = (model: string): boolean => providerOf(model) === 'anthropic';

/** What either engine is opened with: the environment, the cassette, the ledger each call is charged to (pipeline/run/usage-scope.ts), the budget's guard, today's facts and the shared pace. */
async function engineSettings(io: CommandPlace, options: CommandOptions, workspace: Workspace, pace: PaceFor | null, guard: SpendGuard, ledger: UsageLedger) {
  const { currentRoleFacts } = await import('../adapters/engines/runtime-facts.ts');
  const cassetteDir = options.record ?? options.replay;
  return {
    env: io.env,
    settings: workspace.config.anthropic,
    cassette: cassetteDir ? { mode: options.record ? ('record' as const) : ('replay' as const), dir: path.resolve(io.cwd, cassetteDir) } : null,
    ledger,
    guard,
    facts: currentRoleFacts(io.clock),
    ...(pace ? { pace } : {}),
  };
}

async function openaiFor(io: CommandPlace, options: CommandOptions, workspace: Workspace, pace: PaceFor | null, guard: SpendGuard, ledger: UsageLedger) {
  const { openaiEngines } = await import('../adapters/engines/openai.ts');
  return openaiEngines(await engineSettings(io, options, workspace, pace, guard, ledger));
}

async function claudeFor(io: CommandPlace, options: CommandOptions, workspace: Workspace, when: 'at_start' | 'at_first_call', pace: PaceFor | null, guard: SpendGuard, ledger: UsageLedger) {
  const { claudeEngines } = await import('../adapters/engines/claude.ts');
  return claudeEngines(await engineSettings(io, options, workspace, pace, guard, ledger), when);
}
