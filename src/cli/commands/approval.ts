import { AgentdevelError } from '../../domain/errors.ts';
import { approvePending, declinePending, pendingIteration } from '../../pipeline/workspace/approval.ts';
import { refuseDirtyTree } from '../../pipeline/workspace/workspace.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import type { ApproveOptions, DeclineOptions } from './approval.options.ts';

/** A full commit id: a prefix could be matched by a forged commit with a little hashing. */
function trustedCommit(value: string | undefined): string | null {
  if (value === undefined) return null;
  const id = value.trim().toLowerCase();
  if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(id)) {
    throw new AgentdevelError('USAGE', `--trust-pending: "${value}" is not a full commit id; name the reviewed pending commit by all its 40 (or 64) hex digits, since a short prefix can be matched by a forged commit`);
  }
  return id;
}

function iterationOf(selector: string): number {
  const iteration = pendingIteration(selector);
  if (iteration === null) throw new AgentdevelError('USAGE', `"${selector}" names no iteration: pass its number (3), "iter-003" or its pending ref`);
  return iteration;
}

/** `agentdevel approve RC`: the person's yes; the pending release is promoted, all or nothing. */
export async function approveCommand(io: Io, options: ApproveOptions, selector: string): Promise<number> {
  const iteration = iterationOf(selector);
  const trustPending = trustedCommit(options.trustPending);
  const command = await openCommand(io, options, 'approve', 'at_first_call');
  try {
    await refuseDirtyTree(command.workspace);
    const { tag, commit } = await approvePending(command.workspace, iteration, options.by ?? null, io.clock, { textDiff: command.pipelineContext.textDiff }, trustPending);
    if (command.output.json) command.output.result({ iteration, outcome: 'promoted', tag, commit });
    else command.output.line(`iteration ${iteration}: approved and promoted as ${tag} (${commit.slice(0, 10)})`);
    return 0;
  } finally {
    await command.close();
  }
}

/** `agentdevel decline RC --reason "…"`: the person's no, recorded in git; the line does not move. */
export async function declineCommand(io: Io, options: DeclineOptions, selector: string): Promise<number> {
  const iteration = iterationOf(selector);
  const reason = options.reason?.trim();
  if (!reason) throw new AgentdevelError('USAGE', 'decline needs --reason "…": the refusal is recorded in git with it');
  const command = await openCommand(io, options, 'decline', 'at_first_call');
  try {
    const { commit } = await declinePending(command.workspace, iteration, reason, options.by ?? null, io.clock, { textDiff: command.pipelineContext.textDiff });
    if (command.output.json) command.output.result({ iteration, outcome: 'declined', reason, commit });
    else command.output.line(`iteration ${iteration}: declined (${commit.slice(0, 10)}): ${reason}`);
    return 0;
  } finally {
    await command.close();
  }
}
