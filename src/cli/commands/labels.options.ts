// `agentdevel labels` and `agentdevel labels merge`: its command line (the command itself is labels.ts). Light: `--help` reads it without loading the command.
import { argument, command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const labelsCommandLine = command({
  name: 'labels',
  description: 'the symptom vocabulary with counts (failing cases and case-trials) and its aliases',
  options: [],
});

export const labelsMergeCommandLine = command({
  name: 'merge',
  description: 'make synonyms one label: records an alias in git (refs/agentdevel/labels/<bp>); earlier decisions keep what they recorded',
  arguments: [argument('<labels...>', 'the labels that name one symptom')],
  options: [option('--into <name>', 'the label they become (default: the first)'), option('--reason <text>', 'why they are one symptom (recorded with the alias)')],
});

export type LabelsMergeOptions = CommonOptions & OptionsOf<typeof labelsMergeCommandLine>;
