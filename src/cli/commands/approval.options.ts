// `agentdevel approve` and `agentdevel decline`: its command line (the command itself is approval.ts). Light: `--help` reads it without loading the command.
import { argument, command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

const pendingCandidate = argument('<rc>', 'the iteration (3, iter-003) of the pending release candidate');

export const approveCommandLine = command({
  name: 'approve',
  description: 'promote a release candidate that awaits approval (gate layer "approval")',
  arguments: [pendingCandidate],
  options: [
    option('--by <name>', 'who approves (default: your git identity)'),
    option('--trust-pending <commit>', 'approve this pending commit (its full id) after reviewing it, when this machine has no record of the gate holding it (a fresh clone)'),
  ],
});

export const declineCommandLine = command({
  name: 'decline',
  description: 'record the refusal of a release candidate that awaits approval',
  arguments: [pendingCandidate],
  options: [option('--reason <text>', 'why it is declined (recorded in git)'), option('--by <name>', 'who declines (default: your git identity)')],
});

export type ApproveOptions = CommonOptions & OptionsOf<typeof approveCommandLine>;
export type DeclineOptions = CommonOptions & OptionsOf<typeof declineCommandLine>;
