// `agentdevel calibrate`: its command line (the command itself is calibrate.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import { queue } from '../shared-options.ts';
import type { CommonOptions } from '../io.ts';

export const calibrateCommandLine = command({
  name: 'calibrate',
  description: "noise floors: the flip rate of the current release against itself (A/A), and the critic's own disagreement",
  options: [
    option('--critic', "re-grade the same traces several times and report the critic's disagreement rate"),
    option('--repeats <n>', 'times the critic re-grades each trace (default 3)'),
    option('--trials <k>', 'trials per case in each of the two runs (default: the config)'),
    queue,
  ],
});

export type CalibrateOptions = CommonOptions & OptionsOf<typeof calibrateCommandLine>;
