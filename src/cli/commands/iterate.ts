import { AgentdevelError } from '../../domain/errors.ts';
import { ABLATION_TEXT, ablations, isAblation, type Ablation } from '../../domain/ablation.ts';
import { iterate, type DiagnosisPointer, type IterateOutcome } from '../../pipeline/loop/iterate.ts';
import { refuseDirtyTree } from '../../pipeline/workspace/workspace.ts';
import { openCommand, type CommandContext } from '../open-command.ts';
import type { Io } from '../io.ts';
import { simulationNote } from './notes.ts';
import { announceEstimate, printEstimate } from './estimate.ts';
import type { IterateOptions } from './iterate.options.ts';

export function parseAblation(value: string | undefined): Ablation | null {
  if (value === undefined) return null;
  if (!isAblation(value)) throw new AgentdevelError('USAGE', `--ablate: expected one of ${ablations.join(', ')}, got "${value}"`);
  return value;
}

export function parseMaxIterations(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new AgentdevelError('USAGE', `--max-iterations: expected a whole number of at least 1, got "${value}"`);
  return n;
}

/** Where to read a diagnosis report: the command that shows it from git, or its file in agentdevel's state folder. */
function diagnosisPlace(diagnosis: DiagnosisPointer): string {
  return diagnosis.ref ? `git show ${diagnosis.ref}:${diagnosis.file}` : `${diagnosis.file} (not committed: no release candidate was gated)`;
}

export function printIterations(command: CommandContext, outcome: IterateOutcome): void {
  for (const it of outcome.iterations) {
    if (it.gradientDropped) command.output.line(`iteration ${it.iteration}: gradient records: ${it.gradientDropped} model-phrased claim${it.gradientDropped === 1 ? '' : 's'} dropped (evidence that does not resolve)`);
    const what = it.kind === 'promoted' ? `promoted ${it.tag}` : it.kind === 'rejected' ? 'rejected' : 'no release candidate';
    if (it.kind === 'no_candidate') command.output.line(`iteration ${it.iteration}: ${what}: ${it.reasons.filter((r) => r !== it.diagnosis?.note).join('; ')}`);
    else command.output.line(`iteration ${it.iteration}: ${what}  F→P ${it.f2p.length}  P→F ${it.p2f.length}${it.targets.length ? `  targets ${it.targets.join(', ')}` : ''}${it.ablation ? `  ABLATED: ${it.ablation}` : ''}`);
    if (it.diagnosis) command.output.line(`  ${it.diagnosis.note}; report: ${diagnosisPlace(it.diagnosis)}`);
  }
  command.output.line(`current release: ${outcome.release}`);
  command.output.line(`stopped: ${outcome.stopReason}`);
  if (outcome.simulated) command.output.line(simulationNote);
}

export async function iterateCommand(io: Io, options: IterateOptions): Promise<number> {
  const maxIterations = parseMaxIterations(options.maxIterations);
  const ablation = parseAblation(options.ablate);
  // Refused before the workspace is opened: nothing is written, not even a scratch branch.
  if (ablation !== null && options.line === undefined) {
    throw new AgentdevelError('USAGE', `--ablate ${ablation}: refused on the real line; ${ABLATION_TEXT[ablation]}, so it runs only on a scratch line`, {
      hint: `Name one: \`agentdevel iterate --ablate ${ablation} --line scratch\`.`,
    });
  }
  if (options.estimate) return printEstimate(io, options, { command: 'iterate', maxIterations });
  const command = await openCommand(io, options, 'iterate');
  try {
    await refuseDirtyTree(command.workspace);
    await announceEstimate(command, { command: 'iterate', maxIterations });
    const outcome = await iterate(command.pipelineContext, { maxIterations, ablation });
    if (command.output.json) command.output.result(outcome);
    else printIterations(command, outcome);
    return 0;
  } finally {
    await command.close();
  }
}
