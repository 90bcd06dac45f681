import { Command, CommanderError, Option } from 'commander';
import { EXIT, isAgentdevelError } from '../domain/errors.ts';
import { makeRedactor, secretValues } from '../process/environment.ts';
import { processIo, type Io } from './context.ts';
import { demoCommand } from './commands/demo.ts';
import { evaluateTestCommand } from './commands/evaluate-test.ts';
import { gateCommand } from './commands/gate.ts';
import { iterateCommand } from './commands/iterate.ts';
import { logCommand } from './commands/log.ts';
import { runCommand } from './commands/run.ts';

function common(command: Command): Command {
  return command
    .option('-C <dir>', 'work on the workspace in DIR (like git -C)')
    .option('--json', 'print machine-readable output on stdout (progress stays on stderr)')
    .addOption(new Option('--wait <seconds>', 'wait up to SECONDS for another agentdevel command to release the workspace').default('0'))
    .option('--record <dir>', 'save every model request and response as a cassette in DIR')
    .option('--replay <dir>', 'answer model calls from the cassette in DIR, with no network; a request it lacks is an error');
}

export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('agentdevel')
    .description('Release engineering for LLM agents: one line, one release candidate per iteration, a flip-centered gate.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError();
  // -C and --json work before the command too (`agentdevel -C DIR log`), like git.
  common(program);
  const action =
    <T>(handler: (io: Io, options: T) => Promise<number>) =>
    async (options: T) => {
      const global = program.opts<{ C?: string; json?: boolean; wait?: string; record?: string; replay?: string }>();
      const merged = { ...options } as T & { C?: string; json?: boolean; wait?: string; record?: string; replay?: string };
      merged.C ??= global.C;
      merged.record ??= global.record;
      merged.replay ??= global.replay;
      merged.json ||= global.json;
      if (global.wait !== '0' && (merged.wait === undefined || merged.wait === '0')) merged.wait = global.wait;
      exitCode = await handler(io, merged);
    };

  common(program.command('run').description('run a blueprint version over the train split; prints the run id and pass rate'))
    .option('--split <split>', 'train (the test split is sealed: see evaluate-test)', 'train')
    .option('--ref <ref>', 'a branch, tag or commit to run instead of the working tree')
    .option('--trials <k>', 'trials per case (default: the config)')
    .action(action(runCommand));
  common(program.command('iterate').description('the main job: run, diagnose, synthesize one RC, gate, promote or discard; until a stop condition'))
    .option('--max-iterations <n>', 'stop after N iterations (default: stop.maxIterations of the config)')
    .action(action(iterateCommand));
  common(program.command('gate').description('gate a release candidate written by anyone against the current release'))
    .option('--candidate <ref>', 'the branch, tag or commit to gate')
    .option('--promote', 'promote it when accepted (and record it either way)')
    .option('--targets <labels>', 'comma-separated symptom labels the change intends to fix (enables the hit-rate check)')
    .action(action(gateCommand));
  common(program.command('log').description('one line (a JSON object with --json) per release candidate')).action(action(logCommand));
  common(program.command('evaluate-test').description('the single held-out test evaluation of the current release')).action(action(evaluateTestCommand));
  common(program.command('demo').description('build the bundled example in a fresh git repository and run iterate offline'))
    .option('--dir <dir>', 'a new or empty folder for the example workspace')
    .option('--max-iterations <n>', 'stop after N iterations')
    .action(action(demoCommand));

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: Io): number {
  const redact = makeRedactor(secretValues(io.env));
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) return EXIT.ok;
    return EXIT.usage;
  }
  if (isAgentdevelError(error)) {
    io.stderr.write(redact(`error ${error.code}: ${error.message}\n  ${error.hint}\n`));
    return error.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(redact(`internal error (a bug in agentdevel; please report it with this stack):\n${stack}\n`));
  return EXIT.internal;
}
