// `agentdevel gate`: its command line (the command itself is gate.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import { budget, concurrency, estimate, junit, queue, trials } from '../shared-options.ts';
import type { CommonOptions } from '../io.ts';

export const gateCommandLine = command({
  name: 'gate',
  description: 'gate a release candidate written by anyone against the current release',
  options: [
    option('--candidate <ref>', 'the branch, tag or commit to gate'),
    option('--promote', 'promote it when accepted (and record it either way)'),
    option('--targets <labels>', 'comma-separated symptom labels the change intends to fix (enables the hit-rate check)'),
    trials,
    concurrency,
    option('--report-dir <dir>', 'where a gate without --promote writes report.md, report.html and decision.json (default .agentdevel/reports)'),
    option('--summary <file>', 'write a markdown summary for a pull request (also appended to $GITHUB_STEP_SUMMARY when set)'),
    junit,
    option('--allow-behind', 'gate a candidate cut before the current release as it is (otherwise: rebase it first)'),
    option('--reseal-test', 'let a change to the sealed test split (rubrics/<task>/test.jsonl) through: the release records the new split as its seal (otherwise such a change is refused)'),
    option('--baseline <ref>', 'gate against REF instead of the current release: for a change merged into the line without a gate, the line before the merge (with --promote, it becomes the next release)'),
    queue,
    budget,
    estimate,
  ],
});

export type GateOptions = CommonOptions & OptionsOf<typeof gateCommandLine>;
