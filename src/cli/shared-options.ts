// Options that several commands take, declared once so that their help reads the same
// everywhere (what `--queue` means does not depend on the command that takes it).
import { option } from './declaration.ts';

/** Every command that opens a workspace takes these, and so does the program (`agentdevel -C DIR log`, like git). */
export const workspaceOptions = [
  option('-C <dir>', 'work on the workspace in DIR (like git -C)'),
  option('--json', 'print machine-readable output on stdout (progress stays on stderr)'),
  option('--wait <seconds>', 'wait up to SECONDS for another agentdevel command to release the workspace', '0'),
  option('--record <dir>', 'save every model request and response as a cassette in DIR'),
  option('--replay <dir>', 'answer model calls from the cassette in DIR, with no network; a request it lacks is an error'),
] as const;

export const queue = option('--queue <url>', 'run case-trials on workers through this Redis queue (redis:// or rediss://; see `agentdevel worker`)');

export const trials = option('--trials <k>', 'trials per case (default: the config)');

export const concurrency = option('--concurrency <n>', 'case-trials run at once (default: the config)');

export const budget = option('--budget <amount>', 'most to spend on model requests: dollars (0.50usd) or requests (300req); stops before passing it, undecided (exit 3) (default: budget of the config)');

export const estimate = option('--estimate', "print only the projected requests, tokens and cost (from the cost ledger's history), run nothing");

export const junit = option('--junit <file>', 'write JUnit XML: one testcase per case; a fail is a failure, an infrastructure error an error');
