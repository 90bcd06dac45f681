import { passRateOf } from '../../domain/case-summary.ts';
import { TEST_SEAL_SCHEMA, type TestSeal } from '../../domain/test-seal.ts';
import { unsealedTestError } from '../../pipeline/run/failed-run.ts';
import { runVersion } from '../../pipeline/run/execute-run.ts';
import { withCheckout } from '../../pipeline/workspace/checkout.ts';
import { fetchSeals, readSeal, writeSeal } from '../../pipeline/workspace/test-seal.ts';
import { currentRelease } from '../../pipeline/workspace/versions.ts';
import { lineTip } from '../../pipeline/workspace/workspace.ts';
import { openCommand } from '../open-command.ts';
import type { CommonOptions, Io } from '../io.ts';
import { simulationNote } from './notes.ts';

/**
 * The single held-out evaluation of the current release. The test split is sealed: it is run
 * once per release and the result recorded in git (refs/agentdevel/test/), so the seal holds
 * after the store is deleted and in a clone; asking again shows the recorded result.
 */
export async function evaluateTestCommand(io: Io, options: CommonOptions): Promise<number> {
  // A sealed release only prints its recorded result: no model is called, so no key is asked for.
  const command = await openCommand(io, options, 'evaluate-test', 'at_first_call');
  try {
    const { workspace } = command;
    const { repo, config, store } = workspace;
    const tip = await lineTip(workspace);
    const release = await currentRelease(repo, config, tip);
    await fetchSeals(repo, config, command.reporter);
    let seal = await readSeal(repo, config, tip);
    const stored = store.testEvaluation(config.blueprint, tip);
    if (seal === null && stored) {
      // Recorded by an agentdevel that kept the seal only in the store: move it into git.
      seal = { schema: TEST_SEAL_SCHEMA, blueprint: config.blueprint, release: release.label, commit: tip, runId: stored.runId, passRate: stored.passRate, passed: null, graded: null, at: stored.at, simulated: store.run(stored.runId)?.simulated ?? false };
      await writeSeal(repo, config, seal);
    }
    const repeated = seal !== null;
    if (seal) {
      if (!stored) store.saveTestEvaluation(config.blueprint, seal.release, tip, seal.runId, seal.passRate);
      command.output.line(`${seal.release} was already evaluated on the test split (${seal.at}); the test split is sealed, so it is not run again.`);
    } else {
      command.requireModels();
      const run = await withCheckout(workspace, tip, (source) =>
        runVersion(command.pipelineContext, { source, split: 'test', trials: config.trials, purpose: 'test', label: `${release.label} (test)` }),
      );
      const { graded, passed, infraErrors } = run.counts;
      if (infraErrors > 0) {
        // A partial evaluation is not the evaluation: it is not sealed, so it can be run again.
        throw unsealedTestError({ infraErrors, invalid: run.infra?.invalidOutputs ?? { count: 0, first: null }, firstOutage: run.infra?.firstOutage ?? null });
      }
      seal = {
        schema: TEST_SEAL_SCHEMA,
        blueprint: config.blueprint,
        release: release.label,
        commit: tip,
        runId: run.runId,
        passRate: passRateOf(run.counts),
        passed,
        graded,
        at: io.clock.now().toISOString(),
        simulated: run.simulated,
      };
      await writeSeal(repo, config, seal);
      store.saveTestEvaluation(config.blueprint, release.label, tip, run.runId, seal.passRate);
    }
    printResult(command.output, seal, repeated);
    return 0;
  } finally {
    await command.close();
  }
}

function printResult(output: Awaited<ReturnType<typeof openCommand>>['output'], seal: TestSeal, repeated: boolean): void {
  if (output.json) {
    output.result({ release: seal.release, commit: seal.commit, runId: seal.runId, passRate: seal.passRate, passed: seal.passed, graded: seal.graded, at: seal.at, repeated, simulated: seal.simulated });
    return;
  }
  const counts = seal.passed === null || seal.graded === null ? '' : `, ${seal.passed}/${seal.graded} case-trials`;
  output.line(`test split: ${seal.release} passes ${(seal.passRate * 100).toFixed(1)}% (${seal.runId}${counts})`);
  if (seal.simulated) output.line(simulationNote);
}
