// `agentdevel demo`: its command line (the command itself is demo.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const demoCommandLine = command({
  name: 'demo',
  description: 'build the bundled example in a fresh git repository and run iterate offline',
  options: [
    option('--dir <dir>', 'a new or empty folder for the example workspace'),
    option('--max-iterations <n>', 'stop after N iterations'),
    option('--example <name>', 'which bundled example: orders (a single agent, the default) or orders-crew (a crew)'),
  ],
});

export type DemoOptions = CommonOptions & OptionsOf<typeof demoCommandLine>;
