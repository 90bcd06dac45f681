// `agentdevel log`: its command line (the command itself is log.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const logCommandLine = command({
  name: 'log',
  description: 'one line (a JSON object with --json) per release candidate',
  options: [option('--line <name>', 'the release candidates of the scratch line NAME (see iterate --line)')],
});

export type LogOptions = CommonOptions & OptionsOf<typeof logCommandLine>;
