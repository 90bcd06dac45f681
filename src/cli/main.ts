import { Command, CommanderError, Option } from 'commander';
import { EXIT } from '../domain/errors.ts';
import { makeRedactor, secretValues } from '../domain/environment.ts';
import { terminalText } from '../domain/terminal-text.ts';
import { processIo, type CommonOptions, type Io } from './io.ts';
import { parseWait } from '../app/command-options.ts';
import type { LabelsOptions } from './commands/labels.ts';
import type { ApprovalOptions } from './commands/approval.ts';
import type { ImportOptions } from './commands/import.ts';
import type { ReportOptions } from './commands/report.ts';
import type { ShowOptions } from './commands/show.ts';
import type { AttributeOptions } from './commands/attribute.ts';
import type { SyncOptions } from './commands/sync.ts';
import { packageVersion } from './version.ts';
import type { WorkerOptions } from './commands/worker.ts';
import { queueSecrets } from '../domain/queue-address.ts';
import { catalogueErrorOf, stopHelperProcesses } from '../app/command-end.ts';

// Each command's module is imported when that command runs, not before: `--help`, `--version`
// and a usage error load none of the engines, git, SQLite, esbuild or the model SDK, and `log`
// loads only what reading the line needs.
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
    .version(packageVersion(), '-V, --version', 'print the version of agentdevel')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    // A typo gets commander's "did you mean" and one line of usage, not the whole help.
    .showHelpAfterError('usage: agentdevel <command> [options] (`agentdevel --help` lists the commands, `agentdevel <command> --help` its options)');
  // -C and --json work before the command too (`agentdevel -C DIR log`), like git.
  common(program);
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
  const action =
    <T extends CommonOptions>(handler: (io: Io, options: T) => Promise<number>) =>
    async (options: T) => {
      exitCode = await handler(io, mergeGlobal(options));
    };
  /** The action of a command whose module is imported only when the command runs. */
  const lazy = <M, T extends CommonOptions>(load: () => Promise<M>, pick: (module: M) => (io: Io, options: T) => Promise<number>) =>
    action<T>(async (io, options) => pick(await load())(io, options));

  common(program.command('run').description('run a blueprint version over the train split; prints the run id and pass rate'))
    .option('--split <split>', 'train (the test split is sealed: see evaluate-test)', 'train')
    .option('--ref <ref>', 'a branch, tag or commit to run instead of the working tree')
    .option('--trials <k>', 'trials per case (default: the config)')
    .option('--junit <file>', 'write JUnit XML: one testcase per case; a fail is a failure, an infrastructure error an error')
    .option('--case <id>', 'run only this case of the train split (repeat for more)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--fresh', 'run every case-trial now, even when this version already ran with the same settings (its records are otherwise reused)')
    .option('--concurrency <n>', 'case-trials run at once (default: the config)')
    .option('--queue <url>', 'run case-trials on workers through this Redis queue (redis:// or rediss://; see `agentdevel worker`)')
    .option('--budget <amount>', 'most to spend on model requests: dollars (0.50usd) or requests (300req); stops before passing it, undecided (exit 3) (default: budget of the config)')
    .option('--estimate', 'print only the projected requests, tokens and cost (from the cost ledger\'s history), run nothing')
    .action(lazy(commands.run, (m) => m.runCommand));
  common(program.command('iterate').description('the main job: run, diagnose, synthesize one RC, gate, promote or discard; until a stop condition'))
    .option('--max-iterations <n>', 'stop after N iterations (default: stop.maxIterations of the config)')
    .option('--trials <k>', 'trials per case (default: the config)')
    .option('--concurrency <n>', 'case-trials run at once (default: the config)')
    .option('--queue <url>', 'run case-trials on workers through this Redis queue (redis:// or rediss://; see `agentdevel worker`)')
    .option('--ablate <switch>', 'an experiment (paper Table 3): no-gate, no-diagnosis or critic-sees-blueprint; only with --line')
    .option('--line <name>', 'work on the scratch line NAME (branch agentdevel/scratch/NAME, started from the real line), never the real one')
    .option('--budget <amount>', 'most to spend on model requests: dollars (0.50usd) or requests (300req); stops before passing it, undecided (exit 3) (default: budget of the config)')
    .option('--estimate', 'print only the projected requests, tokens and cost (from the cost ledger\'s history), run nothing')
    .action(lazy(commands.iterate, (m) => m.iterateCommand));
  common(program.command('shadow').description('advisory: synthesize the RC agentdevel would propose beside a human change, gate both against their base, print them side by side; never promotes'))
    .option('--against <ref>', 'the human change: a branch, tag or commit')
    .option('--summary <file>', 'write the comparison as markdown, its own advisory section (also appended to $GITHUB_STEP_SUMMARY when set)')
    .option('--trials <k>', 'trials per case (default: the config)')
    .action(lazy(commands.shadow, (m) => m.shadowCommand));
  common(program.command('gate').description('gate a release candidate written by anyone against the current release'))
    .option('--candidate <ref>', 'the branch, tag or commit to gate')
    .option('--promote', 'promote it when accepted (and record it either way)')
    .option('--targets <labels>', 'comma-separated symptom labels the change intends to fix (enables the hit-rate check)')
    .option('--trials <k>', 'trials per case (default: the config)')
    .option('--concurrency <n>', 'case-trials run at once (default: the config)')
    .option('--report-dir <dir>', 'where a gate without --promote writes report.md, report.html and decision.json (default .agentdevel/reports)')
    .option('--summary <file>', 'write a markdown summary for a pull request (also appended to $GITHUB_STEP_SUMMARY when set)')
    .option('--junit <file>', 'write JUnit XML: one testcase per case; a fail is a failure, an infrastructure error an error')
    .option('--allow-behind', 'gate a candidate cut before the current release as it is (otherwise: rebase it first)')
    .option('--reseal-test', "let a change to the sealed test split (rubrics/<task>/test.jsonl) through: the release records the new split as its seal (otherwise such a change is refused)")
    .option('--baseline <ref>', 'gate against REF instead of the current release: for a change merged into the line without a gate, the line before the merge (with --promote, it becomes the next release)')
    .option('--queue <url>', 'run case-trials on workers through this Redis queue (redis:// or rediss://; see `agentdevel worker`)')
    .option('--budget <amount>', 'most to spend on model requests: dollars (0.50usd) or requests (300req); stops before passing it, undecided (exit 3) (default: budget of the config)')
    .option('--estimate', 'print only the projected requests, tokens and cost (from the cost ledger\'s history), run nothing')
    .action(lazy(commands.gate, (m) => m.gateCommand));
  common(program.command('comment').description('post or update one sticky pull request comment with the summary `gate --summary` wrote (GitHub REST API)'))
    .option('--pr <n>', 'the pull request number')
    .option('--summary <file>', 'the summary to post (default agentdevel-report/summary.md)')
    .option('--repo <owner/name>', 'the repository (default $GITHUB_REPOSITORY); the API is $GITHUB_API_URL, the token $GITHUB_TOKEN')
    .option('--key <name>', 'one comment per key: tells apart several gate jobs on one pull request (the Action passes the job id)')
    .option('--timeout <seconds>', 'give up on a request to GitHub whose answer has not arrived in full by then (default 30)')
    .action(lazy(commands.comment, (m) => m.commentCommand));
  common(program.command('export').description("send a run's case-trials as OpenTelemetry spans (GenAI semantic conventions) to an OTLP/HTTP receiver, or write them as OTLP/JSON"))
    .option('--otlp <url>', "the receiver's traces endpoint, e.g. http://localhost:4318/v1/traces")
    .option('--otlp-file <file>', 'write the spans as OTLP/JSON to FILE instead (or as well)')
    .option('--run <run>', 'a run by name or id (default: the newest train run)')
    .option('--timeout <seconds>', 'give up on a receiver that has not taken the spans and answered in full by then (default 30)')
    .action(lazy(commands.export, (m) => m.exportCommand));
  common(program.command('calibrate').description('noise floors: the flip rate of the current release against itself (A/A), and the critic\'s own disagreement'))
    .option('--critic', 're-grade the same traces several times and report the critic\'s disagreement rate')
    .option('--repeats <n>', 'times the critic re-grades each trace (default 3)')
    .option('--trials <k>', 'trials per case in each of the two runs (default: the config)')
    .option('--queue <url>', 'run case-trials on workers through this Redis queue (redis:// or rediss://; see `agentdevel worker`)')
    .action(lazy(commands.calibrate, (m) => m.calibrateCommand));
  common(program.command('compare').description('compare two recorded runs (by name or id) with the gate; exit 0 accepts, 1 rejects'))
    .argument('<baseline>', 'run name or id')
    .argument('<candidate>', 'run name or id')
    .action(async (baseline: string, candidate: string, options: CommonOptions) => {
      exitCode = await (await commands.compare()).compareCommand(io, mergeGlobal(options), baseline, candidate);
    });
  common(program.command('import').description('read external results into a run (format: taubench)'))
    .argument('<format>', 'taubench')
    .argument('<file>', 'the results file')
    .option('--name <name>', 'the name of the new run')
    .option('--trials <list>', 'only these trials, e.g. 0,1')
    .option('--version <label>', 'which agent version the results come from (default: the file\'s content); runs of one version share a flaky history')
    .action(async (format: string, file: string, options: ImportOptions) => {
      exitCode = await (await commands.import()).importCommand(io, mergeGlobal(options), format, file);
    });
  common(program.command('show').description('why a case passed or failed: input, expected, output, scorer and critic verdicts, the trace'))
    .argument('<case>', 'the case id (as in train.jsonl)')
    .option('--run <run>', 'a run by name or id (default: the newest run that graded the case)')
    .option('--ref <ref>', 'the newest run of the blueprint at this branch, tag or commit')
    .action(async (caseId: string, options: ShowOptions) => {
      exitCode = await (await commands.show()).showCommand(io, mergeGlobal(options), caseId);
    });
  common(program.command('report').description('write (or --open) the HTML flip report of a release or a rejected RC, and the line\'s index'))
    .argument('[target]', 'a release tag (default: the newest), or an RC: iter-NNN as `log` lists it')
    .option('--open', 'open the report in the default browser')
    .option('--out <dir>', 'where to write it (default .agentdevel/reports)')
    .action(async (target: string | undefined, options: ReportOptions) => {
      exitCode = await (await commands.report()).reportCommand(io, mergeGlobal(options), target);
    });
  common(program.command('sync').description('fetch and push the line, its release tags and refs/agentdevel/* (git leaves the last two out by default)'))
    .argument('[remote]', 'the remote (default origin)')
    .option('--fetch-only', 'only fetch')
    .option('--push-only', 'only push')
    .option('--timeout <seconds>', 'give up on a fetch or push that has not finished by then (default 30)')
    .action(async (remote: string | undefined, options: SyncOptions) => {
      exitCode = await (await commands.sync()).syncCommand(io, mergeGlobal(options), remote);
    });
  common(program.command('init').description('scaffold a working workspace (config, blueprint, task, cases) in an empty git repository'))
    .option('--runtime <runtime>', 'command (your own program, in any language) or tool-loop (the bundled tool-use example)', 'command')
    .option('--provider <provider>', 'every model role on anthropic (Claude) or openai (any OpenAI-compatible server); default: the offline mock')
    .action(lazy(commands.init, (m) => m.initCommand));
  const labels = common(program.command('labels').description('the symptom vocabulary with counts (failing cases and case-trials) and its aliases')).action(
    lazy(commands.labels, (m) => m.labelsCommand),
  );
  common(labels.command('merge').description('make synonyms one label: records an alias in git (refs/agentdevel/labels/<bp>); earlier decisions keep what they recorded'))
    .argument('<labels...>', 'the labels that name one symptom')
    .option('--into <name>', 'the label they become (default: the first)')
    .option('--reason <text>', 'why they are one symptom (recorded with the alias)')
    .action(async (names: string[], options: LabelsOptions) => {
      exitCode = await (await commands.labels()).labelsMergeCommand(io, mergeGlobal(options), names);
    });
  common(program.command('log').description('one line (a JSON object with --json) per release candidate'))
    .option('--line <name>', 'the release candidates of the scratch line NAME (see iterate --line)')
    .action(lazy(commands.log, (m) => m.logCommand));
  common(program.command('prompts').description('print what a model role is sent for the workspace as it stands (no model call, nothing recorded)'))
    .option('--role <role>', 'critic, reviewer, diagnostician or synthesizer')
    .option('--case <id>', 'the train case whose trace the critic judges (default: the first failing one of the newest run)')
    .action(lazy(commands.prompts, (m) => m.promptsCommand));
  common(program.command('approve').description('promote a release candidate that awaits approval (gate layer "approval")'))
    .argument('<rc>', 'the iteration (3, iter-003) of the pending release candidate')
    .option('--by <name>', 'who approves (default: your git identity)')
    .option('--trust-pending <commit>', "approve this pending commit (its full id) after reviewing it, when this machine has no record of the gate holding it (a fresh clone)")
    .action(async (rc: string, options: ApprovalOptions) => {
      exitCode = await (await commands.approval()).approveCommand(io, mergeGlobal(options), rc);
    });
  common(program.command('decline').description('record the refusal of a release candidate that awaits approval'))
    .argument('<rc>', 'the iteration (3, iter-003) of the pending release candidate')
    .option('--reason <text>', 'why it is declined (recorded in git)')
    .option('--by <name>', 'who declines (default: your git identity)')
    .action(async (rc: string, options: ApprovalOptions) => {
      exitCode = await (await commands.approval()).declineCommand(io, mergeGlobal(options), rc);
    });
  common(program.command('evaluate-test').description('the single held-out test evaluation of the current release'))
    .option('--queue <url>', 'run case-trials on workers through this Redis queue (redis:// or rediss://; see `agentdevel worker`)')
    .action(lazy(commands.evaluateTest, (m) => m.evaluateTestCommand));
  program
    .command('worker')
    .description('take case-trial jobs from a Redis queue and run them (for run, iterate, gate, calibrate, evaluate-test with --queue)')
    .option('--queue <url>', 'the Redis queue: redis://[user:password@]HOST[:PORT][/DB], or rediss:// for TLS')
    .option('--concurrency <n>', 'case-trials run at once (default 4)')
    .option('--cache <dir>', 'where checkouts of the versions under test are kept (default ~/.cache/agentdevel/worker)')
    .option('--lock-duration <ms>', "how long a job's lock lasts: a dead worker's job is taken over after about this long (default 30000)")
    .option('--stalled-interval <ms>', 'how often to look for jobs of dead workers (default: half the lock duration)')
    .option('--max-stalled <n>', 'times a job may lose its worker before it is recorded as an infrastructure error (default 2)')
    .action(async (options: WorkerOptions) => {
      // --record and --replay are the program's options (as for every command that calls models).
      const global = program.opts<CommonOptions>();
      const { workerCommand } = await commands.worker();
      exitCode = await workerCommand(io, { ...options, ...(global.record ? { record: global.record } : {}), ...(global.replay ? { replay: global.replay } : {}) });
    });
  common(program.command('ablate').description("run the release's crew with members removed on the train split; prints the pass rate and flips per setting; promotes nothing"))
    .option('--without <member>', 'a member to remove (repeat for more: each alone, then all together)', (value: string, previous: string[] = []) => [...previous, value])
    .action(lazy(commands.ablate, (m) => m.ablateCommand));
  common(program.command('attribute').description('traces each flip of a release candidate to the edit it depends on (each edit reverted alone, on fresh trials; bounded)'))
    .argument('<rc>', 'the candidate: a branch, tag or commit')
    .option('--base <ref>', 'the version the candidate is measured from (default: its fork point from the line)')
    .option('--variant-trials <n>', "fresh trials per flipped case in each variant (default: attribution.variantTrials, else as many as the gate's confirmation planner gives a case)")
    .action(async (rc: string, options: AttributeOptions) => {
      exitCode = await (await commands.attribute()).attributeCommand(io, mergeGlobal(options), rc);
    });
  common(program.command('discover').description("sub-agent discovery as a bandit (BOAD): rounds of the crew's top members by UCB1 on a design split, judged by helpfulness; the best team becomes an RC for the gate"))
    .option('--rounds <n>', 'rounds to play now (0: propose from the rounds recorded in git)')
    .option('--team <k>', 'members of the proposed team (default 2)')
    .option('--top <k>', 'members on the team each round, by UCB1 (default 3)')
    .option('--budget <amount>', 'most to spend: dollars (0.50usd) or requests (300req), held before every request; or case-trials (400), held between rounds')
    .option('--estimate', 'print only the projected requests, tokens and cost (from the cost ledger\'s history), run nothing')
    .option('--seed <n>', 'the seed of the design split and the archive growth (default: the recorded one, else 1)')
    .option('--show', 'print the bandit state rebuilt from git alone, against the one written (no model, no run)')
    .option('--queue <url>', 'run case-trials on workers through this Redis queue (redis:// or rediss://; see `agentdevel worker`)')
    .action(lazy(commands.discover, (m) => m.discoverCommand));
  common(program.command('demo').description('build the bundled example in a fresh git repository and run iterate offline'))
    .option('--dir <dir>', 'a new or empty folder for the example workspace')
    .option('--max-iterations <n>', 'stop after N iterations')
    .option('--example <name>', 'which bundled example: orders (a single agent, the default) or orders-crew (a crew)')
    .action(lazy(commands.demo, (m) => m.demoCommand));

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

/**
 * SIGINT, SIGTERM and SIGHUP (a closed terminal, an ended shell job) end the command at once,
 * through process.exit, so the exit hooks run:
 * children are killed, RC worktrees and branches removed, the workspace lock released. A
 * promotion caught mid-way keeps its journal; the next command finishes it.
 */
function handleInterrupts(io: Io): () => void {
  const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
  const handlers = (Object.keys(codes) as Array<keyof typeof codes>).map((signal) => {
    const handler = () => {
      io.stderr.write(`\nagentdevel: ${signal}: stopping (releasing the workspace)\n`);
      process.exit(codes[signal]);
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
