// `agentdevel import`: its command line (the command itself is import.ts). Light: `--help` reads it without loading the command.
import { argument, command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const importCommandLine = command({
  name: 'import',
  description: 'read external results into a run (format: taubench)',
  arguments: [argument('<format>', 'taubench'), argument('<file>', 'the results file')],
  options: [
    option('--name <name>', 'the name of the new run'),
    option('--trials <list>', 'only these trials, e.g. 0,1'),
    option('--version <label>', "which agent version the results come from (default: the file's content); runs of one version share a flaky history"),
  ],
});

export type ImportOptions = CommonOptions & OptionsOf<typeof importCommandLine>;
