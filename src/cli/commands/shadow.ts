import { AgentdevelError } from '../../domain/errors.ts';
import { shadow, type ShadowOutcome, type ShadowSide } from '../../pipeline/loop/shadow.ts';
import { openCommand, type CommandContext } from '../open-command.ts';
import type { Io } from '../io.ts';
import { renderShadowSummary } from '../../stages/report/shadow-summary.ts';
import { changeLines } from '../../stages/report/change-text.ts';
import { writeSummary } from '../../app/ci-outputs.ts';
import { simulationNote } from './notes.ts';
import type { ShadowOptions } from './shadow.options.ts';

const list = (ids: readonly string[]): string => (ids.length === 0 ? '-' : ids.join(', '));

function printShadow(command: CommandContext, outcome: ShadowOutcome): void {
  const { human, agentdevel } = outcome;
  const rows: Array<[string, (s: ShadowSide) => string]> = [
    ['change', (s) => `${s.label}${s.commit ? ` (${s.commit.slice(0, 10)})` : ''}`],
    ['gate', (s) => (s.verdict === 'none' ? 'no valid RC' : s.verdict)],
    ['F→P', (s) => `${s.f2p.length}: ${list(s.f2p)}`],
    ['P→F', (s) => `${s.p2f.length}: ${list(s.p2f)}`],
    ['targets', (s) => (s.intent ? s.intent.targets.join(', ') : '-')],
    ['cost', (s) => `${s.caseTrials} case-trials run, $${s.costUsd.toFixed(4)} model cost`],
  ];
  command.output.line(`shadow against ${human.label}, both gated against the base ${outcome.base.label}`);
  const width = Math.max(...rows.map(([, show]) => show(human).length), 20);
  command.output.line(`${''.padEnd(8)}  ${'human'.padEnd(width)}  agentdevel`);
  for (const [name, show] of rows) command.output.line(`${name.padEnd(8)}  ${show(human).padEnd(width)}  ${show(agentdevel)}`);
  command.output.line(`fixed by both: ${list(outcome.fixedInCommon)}`);
  command.output.line(`fixed only by the human change: ${list(outcome.fixedOnlyByHuman)}`);
  command.output.line(`fixed only by agentdevel: ${list(outcome.fixedOnlyByAgentdevel)}`);
  command.output.line(`the gate prefers: ${outcome.preferred} (${outcome.preferredBecause})`);
  for (const line of changeLines(outcome.humanChange)) command.output.line(`human change: ${line}`);
  command.output.line('advisory: nothing was promoted or recorded; the line, its branches and tags did not move');
  if (outcome.simulated) command.output.line(simulationNote);
}

/** `agentdevel shadow --against REF`: agentdevel's own RC beside a human's change, both gated, neither promoted. Exit 0 whatever the gate says. */
export async function shadowCommand(io: Io, options: ShadowOptions): Promise<number> {
  if (!options.against) throw new AgentdevelError('USAGE', 'shadow needs --against REF (the human change: a branch, tag or commit)');
  const command = await openCommand(io, options, 'shadow');
  try {
    const outcome = await shadow(command.pipelineContext, { against: options.against });
    // Its own section of the job page, apart from the gate's; written only when asked for or on Actions.
    const summaryFiles = options.summary || io.env.GITHUB_STEP_SUMMARY ? await writeSummary(io, options, renderShadowSummary(outcome)) : [];
    if (command.output.json) command.output.result({ ...outcome, summaryFiles });
    else {
      printShadow(command, outcome);
      if (options.summary) command.output.line(`summary: ${summaryFiles[0] ?? options.summary}`);
    }
    return 0;
  } finally {
    await command.close();
  }
}
