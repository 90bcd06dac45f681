import { AgentdevelError } from '../../domain/errors.ts';
import { runVersion, withCheckout } from '../../pipeline/execute-run.ts';
import { currentRelease } from '../../pipeline/versions.ts';
import { lineTip } from '../../pipeline/workspace.ts';
import { openCommand, type CommonOptions, type Io } from '../context.ts';
import { simulationNote } from './notes.ts';

/**
 * The single held-out evaluation of the current release. The test split is sealed: it is run
 * once per release and the result recorded; asking again shows the recorded result.
 */
export async function evaluateTestCommand(io: Io, options: CommonOptions): Promise<number> {
  const command = await openCommand(io, options, 'evaluate-test');
  try {
    const { workspace } = command;
    const tip = await lineTip(workspace);
    const release = await currentRelease(workspace.repo, workspace.config, tip);
    const earlier = workspace.store.testEvaluation(workspace.config.blueprint, tip);
    let passRate: number;
    let runId: string;
    let simulated = false;
    if (earlier) {
      ({ passRate, runId } = earlier);
      command.output.line(`${release.label} was already evaluated on the test split (${earlier.at}); the test split is sealed, so it is not run again.`);
    } else {
      const run = await withCheckout(workspace, tip, (source) =>
        runVersion(command.run, { source, split: 'test', trials: workspace.config.trials, purpose: 'test', label: `${release.label} (test)` }),
      );
      const graded = run.records.filter((r) => r.pass !== null);
      if (graded.length < run.records.length) {
        // A partial evaluation is not the evaluation: it is not sealed, so it can be run again.
        throw new AgentdevelError('MODEL_UNAVAILABLE', `${run.records.length - graded.length} test case-trials had infrastructure errors; the test evaluation was not recorded`);
      }
      passRate = graded.length === 0 ? 0 : graded.filter((r) => r.pass).length / graded.length;
      runId = run.runId;
      simulated = run.simulated;
      workspace.store.saveTestEvaluation(workspace.config.blueprint, release.label, tip, runId, passRate);
    }
    if (command.output.json) command.output.result({ release: release.label, commit: tip, runId, passRate, repeated: earlier !== undefined, simulated });
    else {
      command.output.line(`test split: ${release.label} passes ${(passRate * 100).toFixed(1)}% (${runId})`);
      if (simulated) command.output.line(simulationNote);
    }
    return 0;
  } finally {
    await command.close();
  }
}
