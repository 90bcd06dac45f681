// `agentdevel shadow`: its command line (the command itself is shadow.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import { trials } from '../shared-options.ts';
import type { CommonOptions } from '../io.ts';

export const shadowCommandLine = command({
  name: 'shadow',
  description: 'advisory: synthesize the RC agentdevel would propose beside a human change, gate both against their base, print them side by side; never promotes',
  options: [
    option('--against <ref>', 'the human change: a branch, tag or commit'),
    option('--summary <file>', 'write the comparison as markdown, its own advisory section (also appended to $GITHUB_STEP_SUMMARY when set)'),
    trials,
  ],
});

export type ShadowOptions = CommonOptions & OptionsOf<typeof shadowCommandLine>;
