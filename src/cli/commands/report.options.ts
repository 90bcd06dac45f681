// `agentdevel report`: its command line (the command itself is report.ts). Light: `--help` reads it without loading the command.
import { argument, command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const reportCommandLine = command({
  name: 'report',
  description: "write (or --open) the HTML flip report of a release or a rejected RC, and the line's index",
  arguments: [argument('[target]', 'a release tag (default: the newest), or an RC: iter-NNN as `log` lists it')],
  options: [option('--open', 'open the report in the default browser'), option('--out <dir>', 'where to write it (default .agentdevel/reports)')],
});

export type ReportOptions = CommonOptions & OptionsOf<typeof reportCommandLine>;
