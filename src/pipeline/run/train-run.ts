// What `agentdevel run` and the library's `run` both do: one version (the working tree, or a
// ref checked out for the purpose) over the train split, or over the train cases named.
import { AgentdevelError } from '../../domain/errors.ts';
import { runVersion, type RunResult } from './execute-run.ts';
import { withCheckout, workingTreeSource } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';

export interface TrainRunRequest {
  /** A branch, tag or commit to run; null runs the working tree as it is, committed or not. */
  readonly ref: string | null;
  /** Only these train cases (`run --case`); every train case when empty. An id of no case is bad usage. */
  readonly cases: readonly string[];
  /** Run every case-trial now, even when an identical run is recorded (`run --fresh`). */
  readonly fresh?: boolean;
}

/** Runs the working tree or `ref` over the train split (or the named cases of it), with the config's trials. */
export async function runTrainSplit(context: PipelineContext, request: TrainRunRequest): Promise<RunResult> {
  const { workspace } = context;
  const run = {
    split: 'train' as const,
    trials: workspace.config.trials,
    purpose: 'run' as const,
    ...(request.cases.length > 0 ? { cases: request.cases } : {}),
    ...(request.fresh ? { fresh: { reason: 'asked for with --fresh' } } : {}),
  };
  if (request.ref === null) return runVersion(context, { ...run, source: await workingTreeSource(workspace), label: 'working tree' });
  const ref = request.ref;
  const commit = await workspace.repo.resolve(ref);
  if (!commit) throw new AgentdevelError('REF_NOT_FOUND', `ref "${ref}" names no commit in ${workspace.root}`);
  return withCheckout(workspace, commit, (source) => runVersion(context, { ...run, source, label: ref }));
}
