// `agentdevel show`: its command line (the command itself is show.ts). Light: `--help` reads it without loading the command.
import { argument, command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const showCommandLine = command({
  name: 'show',
  description: 'why a case passed or failed: input, expected, output, scorer and critic verdicts, the trace',
  arguments: [argument('<case>', 'the case id (as in train.jsonl)')],
  options: [
    option('--run <run>', 'a run by name or id (default: the newest run that graded the case)'),
    option('--ref <ref>', 'the newest run of the blueprint at this branch, tag or commit'),
  ],
});

export type ShowOptions = CommonOptions & OptionsOf<typeof showCommandLine>;
