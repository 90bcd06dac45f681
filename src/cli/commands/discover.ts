import { AgentdevelError } from '../../domain/errors.ts';
import type { Arm } from '../../domain/discover.ts';
import { parseBudget as parseBudgetText } from '../../domain/budget.ts';
import { announceEstimate, printEstimate } from './estimate.ts';
import { discover, type Budget, type DiscoverOutcome } from '../../pipeline/loop/discover.ts';
import { rebuildFromGit, type RebuiltState } from '../../pipeline/loop/discover-archive.ts';
import { openCommand, type CommandContext } from '../open-command.ts';
import type { Io } from '../io.ts';
import { simulationNote } from './notes.ts';
import type { DiscoverOptions } from './discover.options.ts';

function wholeNumber(option: string, value: string | undefined, fallback: number | null, min: number, max: number): number {
  if (value === undefined) {
    if (fallback === null) throw new AgentdevelError('USAGE', `discover needs ${option} N (rounds of the bandit to play now, ${min} to ${max})`);
    return fallback;
  }
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new AgentdevelError('USAGE', `${option}: expected a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

/** --budget: dollars of the cost ledger ("0.50usd", "$0.50"), requests ("300req") or case-trials ("400"). */
export function parseBudget(value: string | undefined): Budget | null {
  return value === undefined ? null : parseBudgetText(value, '--budget');
}

const pct = (x: number | null): string => (x === null ? '   -  ' : `${(x * 100).toFixed(1).padStart(5)}%`);

function armRows(arms: readonly Arm[], byHelpfulness: readonly string[]): string[] {
  const width = Math.max('member'.length, ...arms.map((a) => a.name.length));
  const rows = byHelpfulness.map((name) => arms.find((a) => a.name === name) as Arm);
  return [
    `${'member'.padEnd(width)}  pulls  used  helpfulness  success rate`,
    ...rows.map((a) => `${a.name.padEnd(width)}  ${String(a.pulls).padStart(5)}  ${String(a.used).padStart(4)}  ${pct(a.used === 0 ? null : a.mean).padStart(11)}  ${pct(a.used === 0 ? null : a.passed / a.used).padStart(12)}`),
  ];
}

function printOutcome(command: CommandContext, outcome: DiscoverOutcome): void {
  const { output } = command;
  output.line(`discover: ${outcome.rounds.length} round${outcome.rounds.length === 1 ? '' : 's'} played now, ${outcome.state.round} in all, on ${outcome.ref} (seed ${outcome.seed})`);
  if (outcome.stoppedEarly) output.line(`stopped early: ${outcome.stoppedEarly}`);
  for (const row of armRows(outcome.state.arms, outcome.ranking.byHelpfulness)) output.line(`  ${row}`);
  output.line(`ranked by helpfulness: ${outcome.ranking.byHelpfulness.join(', ')}; by success rate: ${outcome.ranking.bySuccessRate.join(', ')}`);
  // The mock engine has no price list; a model's calls are metered, and saying otherwise misleads a bill's reader.
  const unmetered = outcome.rounds.some((r) => r.simulated) ? '; the mock engine is not metered' : '';
  output.line(`cost per round (case-trials, requests, and the cost ledger's rows for it${unmetered}):`);
  for (const round of outcome.rounds) {
    output.line(`  round ${round.round}: ${round.cost.caseTrials} case-trials, ${round.cost.judgeRequests} judge and ${round.cost.writerRequests} writer requests; ledger ${round.cost.ledger.calls} calls, $${round.cost.ledger.costUsd.toFixed(4)}`);
  }
  const { gate, proposal } = outcome;
  if (!gate || !proposal) {
    output.line(`no proposal: ${outcome.withheld ?? 'none was gated'}`);
    if (outcome.simulated) output.line(simulationNote);
    return;
  }
  output.line(`proposal: team ${proposal.team.join(', ')} with an orchestrator prompt written for it (${proposal.commit.slice(0, 10)})`);
  output.line(`gate: ${gate.outcome}${gate.tag ? ` as ${gate.tag}` : ''}: ${gate.decision.f2p.length} F→P, ${gate.decision.p2f.length} P→F; ${gate.decision.reasons.join('; ')}`);
  output.line('the proposal went through the gate like any RC; `agentdevel log` lists its decision');
  if (outcome.simulated) output.line(simulationNote);
}

function printRebuilt(command: CommandContext, rebuilt: RebuiltState): void {
  const { output } = command;
  output.line(`${rebuilt.ref}: ${rebuilt.written.round} rounds, seed ${rebuilt.written.seed}, design split ${rebuilt.written.design.cases.length} cases`);
  output.line(`archive: ${rebuilt.members.map((m) => `${m.name} (${m.origin}, round ${m.round})`).join(', ')}`);
  for (const round of rebuilt.rounds) {
    output.line(
      `  round ${round.round}: team ${round.team.join(', ')}${round.crp.added ? `; +${round.crp.added}` : ''}; ${round.cost.caseTrials} case-trials, ${round.cost.judgeRequests} judge and ${round.cost.writerRequests} writer requests, $${round.cost.ledger.costUsd.toFixed(4)}`,
    );
  }
  for (const row of armRows(rebuilt.rebuilt.arms, rebuilt.rebuilt.arms.map((a) => a.name))) output.line(`  ${row}`);
  output.line(rebuilt.equal ? 'rebuilt from the archive and the round documents: equal to bandit.json' : 'rebuilt from the archive and the round documents: DIFFERENT from bandit.json');
  for (const problem of rebuilt.problems) output.line(`  ${problem}`);
}

/**
 * `discover --rounds B [--team K] [--top N] [--budget X] [--seed S]`: BOAD's bandit over crew
 * members, then the best team as an RC through the gate. `discover --show`: the state rebuilt
 * from git alone (no store, no model), against the one written. Like `iterate`, exit 0 whatever
 * the gate decides (its decision is printed and recorded); --show exits 1 when the rebuilt state differs.
 */
export async function discoverCommand(io: Io, options: DiscoverOptions): Promise<number> {
  if (options.show) {
    const command = await openCommand(io, options, null, 'at_start', 'unused');
    try {
      const rebuilt = await rebuildFromGit(command.workspace);
      if (!rebuilt) throw new AgentdevelError('USAGE', `discover --show: no discover rounds are recorded for ${command.workspace.config.blueprint} yet`, { hint: 'Run `agentdevel discover --rounds N` first (on a fresh clone: `agentdevel sync --fetch-only`).' });
      if (command.output.json) command.output.result(rebuilt);
      else printRebuilt(command, rebuilt);
      return rebuilt.equal ? 0 : 1;
    } finally {
      await command.close();
    }
  }
  const request = {
    rounds: wholeNumber('--rounds', options.rounds, null, 0, 200),
    team: wholeNumber('--team', options.team, 2, 1, 20),
    top: wholeNumber('--top', options.top, 3, 1, 20),
    budget: parseBudget(options.budget),
    seed: options.seed === undefined ? null : wholeNumber('--seed', options.seed, null, 0, 2 ** 31 - 1),
  };
  if (options.estimate) return printEstimate(io, options, { command: 'discover', rounds: request.rounds, top: request.top });
  const command = await openCommand(io, options, 'discover');
  try {
    await announceEstimate(command, { command: 'discover', rounds: request.rounds, top: request.top });
    const outcome = await discover(command.pipelineContext, request);
    if (command.output.json) command.output.result(outcome);
    else printOutcome(command, outcome);
    return 0;
  } finally {
    await command.close();
  }
}
