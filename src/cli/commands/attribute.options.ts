// `agentdevel attribute`: its command line (the command itself is attribute.ts). Light: `--help` reads it without loading the command.
import { argument, command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const attributeCommandLine = command({
  name: 'attribute',
  description: 'traces each flip of a release candidate to the edit it depends on (each edit reverted alone, on fresh trials; bounded)',
  arguments: [argument('<rc>', 'the candidate: a branch, tag or commit')],
  options: [
    option('--base <ref>', 'the version the candidate is measured from (default: its fork point from the line)'),
    option('--variant-trials <n>', "fresh trials per flipped case in each variant (default: attribution.variantTrials, else as many as the gate's confirmation planner gives a case)"),
  ],
});

export type AttributeOptions = CommonOptions & OptionsOf<typeof attributeCommandLine>;
