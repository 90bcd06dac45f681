import { passRateOf } from '../../domain/case-summary.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { runVersion, withCheckout, type RunResult } from '../../pipeline/execute-run.ts';
import { openCommand, type CommonOptions, type Io } from '../context.ts';
import { simulationNote } from './notes.ts';

export interface RunOptions extends CommonOptions {
  readonly split?: string;
  readonly ref?: string;
}

export async function runCommand(io: Io, options: RunOptions): Promise<number> {
  const split = options.split ?? 'train';
  if (split === 'test') {
    throw new AgentdevelError('TEST_SPLIT_SEALED', 'the test split is sealed: `run` works on the train split only', {
      hint: 'Run `agentdevel evaluate-test` for the single held-out evaluation of the current release.',
    });
  }
  if (split !== 'train') throw new AgentdevelError('USAGE', `--split: expected "train", got "${split}"`);
  const command = await openCommand(io, options, 'run');
  try {
    const { workspace } = command;
    const request = { split: 'train' as const, trials: workspace.config.trials, purpose: 'run' as const };
    let result: RunResult;
    if (options.ref) {
      const commit = await workspace.repo.resolve(options.ref);
      if (!commit) throw new AgentdevelError('REF_NOT_FOUND', `--ref: "${options.ref}" names no commit in ${workspace.root}`);
      result = await withCheckout(workspace, commit, (source) => runVersion(command.run, { ...request, source, label: options.ref as string }));
    } else {
      // The working tree as it is, committed or not: what the user sees is what runs.
      const head = (await workspace.repo.resolve('HEAD')) ?? 'none';
      const dirty = (await workspace.repo.uncommittedPaths()).length > 0;
      result = await runVersion(command.run, { ...request, source: { commit: dirty ? `${head}+dirty` : head, dir: workspace.root }, label: 'working tree' });
    }
    const { passed, graded, infraErrors } = result.counts;
    const passRate = passRateOf(result.counts);
    if (command.output.json) {
      command.output.result({ runId: result.runId, split, trials: request.trials, passRate, passed, graded, infraErrors, reused: result.reused, simulated: result.simulated });
    } else {
      command.output.line(`${result.runId}: pass rate ${(passRate * 100).toFixed(1)}% (${passed}/${graded} case-trials)${infraErrors ? `, ${infraErrors} infrastructure errors` : ''}${result.reused ? ', reused' : ''}`);
      if (result.simulated) command.output.line(simulationNote);
    }
    return 0;
  } finally {
    await command.close();
  }
}
