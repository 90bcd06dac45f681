import { Command, CommanderError, Option } from 'commander';
import { hasInterruptSteps, runInterruptSteps } from './interrupt-steps.ts';
import { EXIT } from '../domain/errors.ts';
import { makeRedactor, secretValues } from '../domain/environment.ts';
import { terminalText } from '../domain/terminal-text.ts';
import { processIo, type CommonOptions, type Io } from './io.ts';
import { parseWait } from '../app/command-options.ts';
import { packageVersion } from './version.ts';
import { queueSecrets } from '../domain/queue-address.ts';
import { catalogueErrorOf, stopHelperProcesses } from '../app/command-end.ts';
import type { ArgumentsOf, CommandDeclaration, OptionDeclaration, OptionsOf } from './declaration.ts';
import { workspaceOptions } from './shared-options.ts';
import { ablateCommandLine } from './commands/ablate.options.ts';
import { approveCommandLine, declineCommandLine } from './commands/approval.options.ts';
import { attributeCommandLine } from './commands/attribute.options.ts';
import { calibrateCommandLine } from './commands/calibrate.options.ts';
import { commentCommandLine } from './commands/comment.options.ts';
import { compareCommandLine } from './commands/compare.options.ts';
import { demoCommandLine } from './commands/demo.options.ts';
import { discoverCommandLine } from './commands/discover.options.ts';
import { evaluateTestCommandLine } from './commands/evaluate-test.options.ts';
import { exportCommandLine } from './commands/export.options.ts';
import { gateCommandLine } from './commands/gate.options.ts';
import { importCommandLine } from './commands/import.options.ts';
import { initCommandLine } from './commands/init.options.ts';
import { iterateCommandLine } from './commands/iterate.options.ts';
import { labelsCommandLine, labelsMergeCommandLine } from './commands/labels.options.ts';
import { logCommandLine } from './commands/log.options.ts';
import { promptsCommandLine } from './commands/prompts.options.ts';
import { reportCommandLine } from './commands/report.options.ts';
import { runCommandLine } from './commands/run.options.ts';
import { shadowCommandLine } from './commands/shadow.options.ts';
import { showCommandLine } from './commands/show.options.ts';
import { syncCommandLine } from './commands/sync.options.ts';
import { workerCommandLine, type WorkerOptions } from './commands/worker.options.ts';

// Each command's module is imported when that command runs, not before: `--help`, `--version`
// and a usage error load none of the engines, git, SQLite, esbuild or the model SDK, and `log`
// loads only what reading the line needs. Their declarations (commands/*.options.ts) are light.
const commands = {
  approval: () => import('./commands/approval.ts'),
  calibrate: () => import('./commands/calibrate.ts'),
  comment: () => import('./commands/comment.ts'),
  compare: () => import('./commands/compare.ts'),
  demo: () => import('./commands/demo.ts'),
  ablate: () => import('./commands/ablate.ts'),
  attribute: () => import('./commands/attribute.ts'),
  discover: () => import('./commands/discover.ts'),
  evaluateTest: () => import('./commands/evaluate-test.ts'),
  export: () => import('./commands/export.ts'),
  gate: () => import('./commands/gate.ts'),
  import: () => import('./commands/import.ts'),
  init: () => import('./commands/init.ts'),
  iterate: () => import('./commands/iterate.ts'),
  labels: () => import('./commands/labels.ts'),
  log: () => import('./commands/log.ts'),
  prompts: () => import('./commands/prompts.ts'),
  report: () => import('./commands/report.ts'),
  run: () => import('./commands/run.ts'),
  shadow: () => import('./commands/shadow.ts'),
  show: () => import('./commands/show.ts'),
  sync: () => import('./commands/sync.ts'),
  worker: () => import('./commands/worker.ts'),
};

/** What runs a command: its options (the declared ones and the workspace's) and its arguments, in order. */
type Handler<D extends CommandDeclaration> = (io: Io, options: CommonOptions & OptionsOf<D>, ...args: ArgumentsOf<D>) => Promise<number>;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function addOptions(command: Command, options: readonly OptionDeclaration[]): Command {
  for (const declared of options) {
    const added = new Option(declared.flags, declared.description);
    if (declared.defaultValue !== undefined) added.default(declared.defaultValue);
    if (declared.repeatable) added.argParser(collect);
    command.addOption(added);
  }
  return command;
}

/** The commander command of a declaration, below `parent`. */
function define(parent: Command, declaration: CommandDeclaration): Command {
  const command = parent.command(declaration.name).description(declaration.description);
  if (declaration.common) addOptions(command, workspaceOptions);
  for (const { name, description } of declaration.arguments) command.argument(name, description);
  return addOptions(command, declaration.options);
}

export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('agentdevel')
    .description('Release engineering for LLM agents: one line, one release candidate per iteration, a flip-centered gate.')
    .version(packageVersion(), '-V, --version', 'print the version of agentdevel')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    // A typo gets commander's "did you mean" and one line of usage, not the whole help.
    .showHelpAfterError('usage: agentdevel <command> [options] (`agentdevel --help` lists the commands, `agentdevel <command> --help` its options)');
  // -C and --json work before the command too (`agentdevel -C DIR log`), like git.
  addOptions(program, workspaceOptions);
  const mergeGlobal = <T extends CommonOptions>(options: T): T => {
    const global = program.opts<CommonOptions>();
    const wait = global.wait !== '0' && (options.wait === undefined || options.wait === '0') ? global.wait : options.wait;
    // Checked for every command, before anything is opened: `--wait abc` is a usage error.
    parseWait(wait);
    return {
      ...options,
      C: options.C ?? global.C,
      record: options.record ?? global.record,
      replay: options.replay ?? global.replay,
      json: options.json === true || global.json === true,
      wait,
    };
  };
  /** Declares a command below `parent`, whose handler is in module `load`, imported only when the command runs. */
  const declare = <D extends CommandDeclaration, M>(parent: Command, declaration: D, load: () => Promise<M>, pick: (module: M) => Handler<D>): Command =>
    define(parent, declaration).action(async (...values: unknown[]) => {
      // commander passes the arguments in order, then the options.
      const count = declaration.arguments.length;
      const options = mergeGlobal(values[count] as CommonOptions & OptionsOf<D>);
      exitCode = await pick(await load())(io, options, ...(values.slice(0, count) as ArgumentsOf<D>));
    });

  declare(program, runCommandLine, commands.run, (m) => m.runCommand);
  declare(program, iterateCommandLine, commands.iterate, (m) => m.iterateCommand);
  declare(program, shadowCommandLine, commands.shadow, (m) => m.shadowCommand);
  declare(program, gateCommandLine, commands.gate, (m) => m.gateCommand);
  declare(program, commentCommandLine, commands.comment, (m) => m.commentCommand);
  declare(program, exportCommandLine, commands.export, (m) => m.exportCommand);
  declare(program, calibrateCommandLine, commands.calibrate, (m) => m.calibrateCommand);
  declare(program, compareCommandLine, commands.compare, (m) => m.compareCommand);
  declare(program, importCommandLine, commands.import, (m) => m.importCommand);
  declare(program, showCommandLine, commands.show, (m) => m.showCommand);
  declare(program, reportCommandLine, commands.report, (m) => m.reportCommand);
  declare(program, syncCommandLine, commands.sync, (m) => m.syncCommand);
  declare(program, initCommandLine, commands.init, (m) => m.initCommand);
  const labels = declare(program, labelsCommandLine, commands.labels, (m) => m.labelsCommand);
  declare(labels, labelsMergeCommandLine, commands.labels, (m) => m.labelsMergeCommand);
  declare(program, logCommandLine, commands.log, (m) => m.logCommand);
  declare(program, promptsCommandLine, commands.prompts, (m) => m.promptsCommand);
  declare(program, approveCommandLine, commands.approval, (m) => m.approveCommand);
  declare(program, declineCommandLine, commands.approval, (m) => m.declineCommand);
  declare(program, evaluateTestCommandLine, commands.evaluateTest, (m) => m.evaluateTestCommand);
  define(program, workerCommandLine).action(async (options: WorkerOptions) => {
    // --record and --replay are the program's options (as for every command that calls models).
    const global = program.opts<CommonOptions>();
    const { workerCommand } = await commands.worker();
    exitCode = await workerCommand(io, { ...options, ...(global.record ? { record: global.record } : {}), ...(global.replay ? { replay: global.replay } : {}) });
  });
  declare(program, ablateCommandLine, commands.ablate, (m) => m.ablateCommand);
  declare(program, attributeCommandLine, commands.attribute, (m) => m.attributeCommand);
  declare(program, discoverCommandLine, commands.discover, (m) => m.discoverCommand);
  declare(program, demoCommandLine, commands.demo, (m) => m.demoCommand);

  const stopHandlingInterrupts = handleInterrupts(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return await reportError(error, io, argv.includes('--json'), queueSecrets(queueArgument(argv)));
  } finally {
    stopHandlingInterrupts();
    await stopHelperProcesses();
  }
}

/** How long an interrupted command's last steps (a worker handing its jobs back, a command on a queue taking its waiting ones back) may take before it exits. */
const INTERRUPT_STEPS_MS = 3000;

/**
 * SIGINT, SIGTERM and SIGHUP (a closed terminal, an ended shell job) end the command at once,
 * or after its interrupt steps (interrupt-steps.ts: at most INTERRUPT_STEPS_MS, milliseconds
 * as a rule), through process.exit, so the exit hooks run:
 * children are killed, RC worktrees and branches removed, the workspace lock released. A
 * promotion caught mid-way keeps its journal; the next command finishes it.
 */
function handleInterrupts(io: Io): () => void {
  const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
  let interrupted = false;
  const handlers = (Object.keys(codes) as Array<keyof typeof codes>).map((signal) => {
    const handler = () => {
      // A second signal while the steps run: at once.
      if (interrupted) process.exit(codes[signal]);
      interrupted = true;
      // What is released (a workspace's lock, worktrees, children) is the exit hooks', after the steps.
      io.stderr.write(`\nagentdevel: ${signal}: stopping\n`);
      if (!hasInterruptSteps()) process.exit(codes[signal]);
      void runInterruptSteps(INTERRUPT_STEPS_MS).finally(() => process.exit(codes[signal]));
    };
    process.on(signal, handler);
    return () => process.removeListener(signal, handler);
  });
  return () => {
    for (const remove of handlers) remove();
  };
}

/** With --json an error is also one JSON object on stdout, so a machine reading stdout always gets an answer. */
function jsonError(io: Io, redact: (text: string) => string, error: { code: string; message: string; hint: string; exitCode: number }): void {
  io.stdout.write(`${redact(JSON.stringify({ error }))}\n`);
}

/** The value of --queue on the command line, whose password no error may print. */
function queueArgument(argv: readonly string[]): string | undefined {
  const at = argv.indexOf('--queue');
  return at >= 0 ? argv[at + 1] : argv.find((arg) => arg.startsWith('--queue='))?.slice('--queue='.length);
}

async function reportError(error: unknown, io: Io, json: boolean, extraSecrets: readonly string[]): Promise<number> {
  const redact = makeRedactor([...secretValues(io.env), ...extraSecrets]);
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) return EXIT.ok;
    // commander has printed its own message on stderr already.
    if (json) jsonError(io, redact, { code: 'USAGE', message: error.message.replace(/^error: /, ''), hint: 'Run `agentdevel --help` for the commands and their options.', exitCode: EXIT.usage });
    return EXIT.usage;
  }
  const known = await catalogueErrorOf(error);
  if (known) {
    io.stderr.write(redact(`error ${known.code}: ${terminalText(known.message)}\n  ${terminalText(known.hint)}\n`));
    if (json) jsonError(io, redact, { code: known.code, message: known.message, hint: known.hint, exitCode: known.exitCode });
    return known.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(redact(`internal error (a bug in agentdevel; please report it with this stack):\n${stack}\n`));
  if (json) jsonError(io, redact, { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error), hint: 'A bug in agentdevel: please report it with the stack printed on stderr.', exitCode: EXIT.internal });
  return EXIT.internal;
}
