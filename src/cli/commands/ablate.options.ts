// `agentdevel ablate`: its command line (the command itself is ablate.ts). Light: `--help` reads it without loading the command.
import { command, repeatableOption, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const ablateCommandLine = command({
  name: 'ablate',
  description: "run the release's crew with members removed on the train split; prints the pass rate and flips per setting; promotes nothing",
  options: [repeatableOption('--without <member>', 'a member to remove (repeat for more: each alone, then all together)')],
});

export type AblateOptions = CommonOptions & OptionsOf<typeof ablateCommandLine>;
