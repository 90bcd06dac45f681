import { AgentdevelError } from '../../domain/errors.ts';
import { attribute } from '../../pipeline/gate/attribute.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import { simulationNote } from './notes.ts';
import type { AttributeOptions } from './attribute.options.ts';

const EVIDENCE = { reverted: 'undone by reverting it alone', alone: 'reproduced by it alone', unexplained: 'no single edit: several together, or noise' } as const;

function parseVariantTrials(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new AgentdevelError('USAGE', `--variant-trials: expected a whole number from 1 to 64, got "${value}"`);
  return n;
}

/** `attribute RC [--base REF] [--variant-trials N]`: each flip of RC traced to the edit it depends on. Writes nothing to the line. */
export async function attributeCommand(io: Io, options: AttributeOptions, candidate: string): Promise<number> {
  const trials = parseVariantTrials(options.variantTrials);
  const command = await openCommand(io, options, 'attribute');
  try {
    const outcome = await attribute(command.pipelineContext, { candidate, base: options.base ?? null, trials: trials ?? command.workspace.config.attribution.variantTrials ?? null });
    if (command.output.json) {
      command.output.result(outcome);
      return 0;
    }
    command.output.line(`${candidate}: ${outcome.flips.length} flips, ${outcome.edits.length} edits (${outcome.edits.join(', ')})`);
    for (const flip of outcome.flips) {
      command.output.line(`  ${flip.caseId}  ${flip.direction === 'f2p' ? 'F→P' : 'P→F'}  ${flip.edits.join(', ') || '-'}  (${EVIDENCE[flip.evidence]})`);
    }
    const { cost, fullRuns } = outcome;
    command.output.line(
      `cost: the base and the candidate on the train split (${fullRuns.caseTrials} case-trials run, ${fullRuns.reused} of 2 runs reused), then ${cost.runs} variant runs, ${cost.caseTrials} case-trials at ${cost.trials} fresh trials a case (bound: ${cost.bound.runs} runs, ${cost.bound.caseTrials} case-trials)`,
    );
    if (outcome.simulated) command.output.line(simulationNote);
    return 0;
  } finally {
    await command.close();
  }
}
