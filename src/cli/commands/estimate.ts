// `--estimate` (print the projection of a command's spend and run nothing) and the one line of
// projection a command that does run says before it starts (run, gate, iterate, discover).
import { estimateSpend, type EstimatedCommand } from '../../pipeline/run/spend-estimate.ts';
import { projectionLines, type Projection } from '../../domain/spend-projection.ts';
import { budgetText } from '../../domain/budget.ts';
import { openCommand, type CommandContext } from '../open-command.ts';
import type { CommonOptions, Io } from '../io.ts';

/** Prints only the projection: no lock is taken, no model is asked and nothing runs (exit 0). */
export async function printEstimate(io: Io, options: CommonOptions, request: EstimatedCommand): Promise<number> {
  const { budget: _ignored, ...reading } = options;
  const command = await openCommand(io, reading, null);
  try {
    const projection = await estimateSpend(command.workspace, request);
    if (command.output.json) command.output.result({ projection });
    else for (const line of projectionLines(projection, projection?.command ?? request.command)) command.output.line(line);
    return 0;
  } finally {
    await command.close();
  }
}

/** Says what the work is expected to spend, and the budget it is held to, before it starts. */
export async function announceEstimate(command: CommandContext, request: EstimatedCommand): Promise<void> {
  const projection = await estimateSpend(command.workspace, request);
  const budget = command.pipelineContext.budget?.budget;
  // Nothing to project and no budget to hold: a workspace that never paid for a request (the mock
  // engine, a `command` agent with offline roles) hears nothing of money.
  if (projection === null && !budget) return;
  const held = budget ? `; budget ${budgetText(budget)}` : '';
  command.reporter.emit({ type: 'stage', stage: 'budget', message: `${oneLine(projection)}${held}` });
}

function oneLine(projection: Projection | null): string {
  if (projection === null) return 'projected spend: no history in the cost ledger yet';
  const { requests, costUsd } = projection;
  const r = (x: number) => Math.round(x);
  return `projected spend: about ${r(requests.expected)} requests (${r(requests.low)}–${r(requests.high)}), $${costUsd.expected.toFixed(2)} ($${costUsd.low.toFixed(2)}–$${costUsd.high.toFixed(2)}), from ${projection.basis}`;
}
