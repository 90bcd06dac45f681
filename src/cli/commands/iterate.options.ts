// `agentdevel iterate`: its command line (the command itself is iterate.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import { budget, concurrency, estimate, queue, trials } from '../shared-options.ts';
import type { CommonOptions } from '../io.ts';

export const iterateCommandLine = command({
  name: 'iterate',
  description: 'the main job: run, diagnose, synthesize one RC, gate, promote or discard; until a stop condition',
  options: [
    option('--max-iterations <n>', 'stop after N iterations (default: stop.maxIterations of the config)'),
    trials,
    concurrency,
    queue,
    option('--ablate <switch>', 'an experiment (paper Table 3): no-gate, no-diagnosis or critic-sees-blueprint; only with --line'),
    option('--line <name>', 'work on the scratch line NAME (branch agentdevel/scratch/NAME, started from the real line), never the real one'),
    budget,
    estimate,
  ],
});

export type IterateOptions = CommonOptions & OptionsOf<typeof iterateCommandLine>;
