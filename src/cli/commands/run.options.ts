// `agentdevel run`: its command line (the command itself is run.ts). Light: `--help` reads it without loading the command.
import { command, option, repeatableOption, type OptionsOf } from '../declaration.ts';
import { budget, concurrency, estimate, junit, queue, trials } from '../shared-options.ts';
import type { CommonOptions } from '../io.ts';

export const runCommandLine = command({
  name: 'run',
  description: 'run a blueprint version over the train split; prints the run id and pass rate',
  options: [
    option('--split <split>', 'train (the test split is sealed: see evaluate-test)', 'train'),
    option('--ref <ref>', 'a branch, tag or commit to run instead of the working tree'),
    trials,
    junit,
    repeatableOption('--case <id>', 'run only this case of the train split (repeat for more)'),
    option('--fresh', 'run every case-trial now, even when this version already ran with the same settings (its records are otherwise reused)'),
    concurrency,
    queue,
    budget,
    estimate,
  ],
});

export type RunOptions = CommonOptions & OptionsOf<typeof runCommandLine>;
