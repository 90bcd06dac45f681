// `agentdevel discover`: its command line (the command itself is discover.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import { estimate, queue } from '../shared-options.ts';
import type { CommonOptions } from '../io.ts';

export const discoverCommandLine = command({
  name: 'discover',
  description: "sub-agent discovery as a bandit (BOAD): rounds of the crew's top members by UCB1 on a design split, judged by helpfulness; the best team becomes an RC for the gate",
  options: [
    option('--rounds <n>', 'rounds to play now (0: propose from the rounds recorded in git)'),
    option('--team <k>', 'members of the proposed team (default 2)'),
    option('--top <k>', 'members on the team each round, by UCB1 (default 3)'),
    // Unlike the other commands' --budget, it may also count case-trials.
    option('--budget <amount>', 'most to spend: dollars (0.50usd) or requests (300req), held before every request; or case-trials (400), held between rounds'),
    estimate,
    option('--seed <n>', 'the seed of the design split and the archive growth (default: the recorded one, else 1)'),
    option('--show', 'print the bandit state rebuilt from git alone, against the one written (no model, no run)'),
    queue,
  ],
});

export type DiscoverOptions = CommonOptions & OptionsOf<typeof discoverCommandLine>;
