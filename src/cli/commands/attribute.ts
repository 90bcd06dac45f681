import { attribute } from '../../pipeline/gate/attribute.ts';
import { openCommand, type CommonOptions, type Io } from '../../app/compose.ts';
import { simulationNote } from './notes.ts';

export interface AttributeOptions extends CommonOptions {
  readonly base?: string;
}

const EVIDENCE = { reverted: 'undone by reverting it alone', alone: 'reproduced by it alone', unexplained: 'no single edit: several together, or noise' } as const;

/** `attribute RC [--base REF]`: each flip of RC traced to the edit it depends on. Writes nothing to the line. */
export async function attributeCommand(io: Io, options: AttributeOptions, candidate: string): Promise<number> {
  const command = await openCommand(io, options, 'attribute');
  try {
    const outcome = await attribute(command.run, { candidate, base: options.base ?? null });
    if (command.output.json) {
      command.output.result(outcome);
      return 0;
    }
    command.output.line(`${candidate}: ${outcome.flips.length} flips, ${outcome.edits.length} edits (${outcome.edits.join(', ')})`);
    for (const flip of outcome.flips) {
      command.output.line(`  ${flip.caseId}  ${flip.direction === 'f2p' ? 'F→P' : 'P→F'}  ${flip.edits.join(', ') || '-'}  (${EVIDENCE[flip.evidence]})`);
    }
    command.output.line(`cost: ${outcome.runs} variant runs, ${outcome.caseTrials} case-trials (bound: ${outcome.bound.runs} runs, ${outcome.bound.caseTrials} case-trials)`);
    if (outcome.simulated) command.output.line(simulationNote);
    return 0;
  } finally {
    await command.close();
  }
}
