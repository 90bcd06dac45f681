// `agentdevel sync`: its command line (the command itself is sync.ts). Light: `--help` reads it without loading the command.
import { argument, command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const syncCommandLine = command({
  name: 'sync',
  description: 'fetch and push the line, its release tags and refs/agentdevel/* (git leaves the last two out by default)',
  arguments: [argument('[remote]', 'the remote (default origin)')],
  options: [
    option('--fetch-only', 'only fetch'),
    option('--push-only', 'only push'),
    option('--timeout <seconds>', 'give up on a fetch or push that has not finished by then (default 30)'),
  ],
});

export type SyncOptions = CommonOptions & OptionsOf<typeof syncCommandLine>;
