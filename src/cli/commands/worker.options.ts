// `agentdevel worker`: its command line (the command itself is worker.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';

export const workerCommandLine = command({
  name: 'worker',
  description: 'take case-trial jobs from a Redis queue and run them (for run, iterate, gate, calibrate, evaluate-test with --queue)',
  // A worker opens no workspace; --record and --replay are the program's options.
  common: false,
  options: [
    option('--queue <url>', 'the Redis queue: redis://[user:password@]HOST[:PORT][/DB], or rediss:// for TLS'),
    option('--concurrency <n>', 'case-trials run at once (default 4)'),
    option('--cache <dir>', 'where checkouts of the versions under test are kept (default $XDG_CACHE_HOME/agentdevel/worker, else ~/.cache/agentdevel/worker)'),
    option('--lock-duration <ms>', "how long a job's lock lasts: a dead worker's job is taken over after about this long (default 30000)"),
    option('--stalled-interval <ms>', 'how often to look for jobs of dead workers (default: half the lock duration)'),
    option('--max-stalled <n>', 'times a job may lose its worker before it is recorded as an infrastructure error (default 2)'),
  ],
});

/** The worker's options, and the program's --record and --replay. */
export type WorkerOptions = OptionsOf<typeof workerCommandLine> & { readonly record?: string; readonly replay?: string };
