import { passRateOf } from '../../domain/case-summary.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { runTrainSplit } from '../../pipeline/run/train-run.ts';
import { failingCasesFrom } from '../../stages/report/case-reasons.ts';
import { agentErrorTally, countingAgentErrors } from '../../stages/run/agent-errors.ts';
import { writeRunJunit } from '../../app/ci-outputs.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import { simulationNote } from './notes.ts';
import { announceEstimate, printEstimate } from './estimate.ts';
import type { RunOptions } from './run.options.ts';

export async function runCommand(io: Io, options: RunOptions): Promise<number> {
  const split = options.split ?? 'train';
  if (split === 'test') {
    throw new AgentdevelError('TEST_SPLIT_SEALED', 'the test split is sealed: `run` works on the train split only', {
      hint: 'Run `agentdevel evaluate-test` for the single held-out evaluation of the current release.',
    });
  }
  if (split !== 'train') throw new AgentdevelError('USAGE', `--split: expected "train", got "${split}"`);
  if (options.estimate) return printEstimate(io, options, { command: 'run', cases: options.case ?? [] });
  const command = await openCommand(io, options, 'run');
  try {
    const { workspace } = command;
    await announceEstimate(command, { command: 'run', cases: options.case ?? [] });
    const result = await runTrainSplit(command.pipelineContext, { ref: options.ref ?? null, cases: options.case ?? [], fresh: options.fresh === true });
    const { passed, graded, infraErrors } = result.counts;
    const passRate = passRateOf(result.counts);
    // The records stay in the store. The failing cases and the alarm are read together from the
    // run's per-case counts and only its records that are not clean passes (at 100,000 cases,
    // reading every record back cost more than saving them); JUnit reads them all, when asked for.
    const trials = [...result.cases.values()].reduce((sum, c) => sum + c.trials, 0);
    const errors = agentErrorTally(trials);
    const failing = failingCasesFrom(countingAgentErrors(workspace.store.eachRecord(result.runId, { notable: true }), errors), result.cases);
    const junit = await writeRunJunit(io, options, workspace, result);
    const alarm = errors.alarm('run');
    if (command.output.json) {
      command.output.result({
        runId: result.runId,
        split,
        trials: workspace.config.trials,
        passRate,
        passed,
        graded,
        infraErrors,
        failing,
        junit,
        warnings: alarm ? [alarm] : [],
        reused: result.reused,
        simulated: result.simulated,
        mockRoles: result.mockRoles,
      });
    } else {
      command.output.line(`${result.runId}: pass rate ${(passRate * 100).toFixed(1)}% (${passed}/${graded} case-trials)${infraErrors ? `, ${infraErrors} infrastructure errors` : ''}${result.reused ? ', reused' : ''}`);
      if (failing.length > 0) command.output.line(`failing (${failing.length} case${failing.length === 1 ? '' : 's'}; \`agentdevel show CASE\` for the whole story):`);
      for (const c of failing) command.output.line(`  ${c.caseId}  ${c.passes}/${c.graded}${c.infraErrors ? ` +${c.infraErrors} infra` : ''}  ${c.reason}`);
      if (alarm) command.output.line(`WARNING: ${alarm}`);
      if (result.simulated) command.output.line(simulationNote);
    }
    return 0;
  } finally {
    await command.close();
  }
}

