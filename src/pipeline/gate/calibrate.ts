import { eachPool } from '../../stages/run/pool.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { readTrace, TraceDamaged, traceLocation } from '../../stages/run/trace-file.ts';
import { decideOnRecordedRuns, type Comparison } from '../../stages/gate/compare.ts';
import { criticJudged } from '../../domain/requirements.ts';
import { comparePolicy } from './evaluate-candidate.ts';
import { runVersion, type RunResult } from '../run/execute-run.ts';
import { withCheckout } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';
import { currentRelease } from '../workspace/versions.ts';
import { lineTip } from '../workspace/workspace.ts';

export interface AgentNoise {
  readonly release: string;
  readonly trials: number;
  readonly runs: readonly [string, string];
  readonly cases: number;
  /** Share of cases whose pass count differs between two runs of the identical version. */
  readonly flipRate: number;
  readonly changed: string[];
  readonly comparison: Comparison;
}

export interface CriticNoise {
  readonly model: string;
  readonly records: number;
  readonly repeats: number;
  /** Share of case-trials on which the critic's pass/fail verdict was not the same every time. */
  readonly passDisagreement: number;
  /** Share of failing case-trials on which its symptom label was not the same every time. */
  readonly labelDisagreement: number;
}

/**
 * An A/A test: the current release runs twice on fresh trials, and the flips between the two
 * are the noise floor any real gate decision has to clear.
 */
export async function calibrateAgent(context: PipelineContext): Promise<{ noise: AgentNoise; first: RunResult }> {
  const { workspace } = context;
  const { config } = workspace;
  const tip = await lineTip(workspace);
  const release = await currentRelease(workspace.repo, config, tip);
  const [first, second] = await withCheckout(workspace, tip, async (source) => {
    const request = { source, split: 'train' as const, trials: config.trials, purpose: 'run' as const };
    const a = await runVersion(context, { ...request, label: `${release.label} (A)` });
    const b = await runVersion(context, { ...request, firstTrial: config.trials, label: `${release.label} (B)` });
    return [a, b] as const;
  });
  const comparison = decideOnRecordedRuns({
    baseline: first.cases,
    candidate: second.cases,
    policy: comparePolicy(config),
    noise: { variedCases: workspace.store.variedCases(first.taskTree) },
    intent: null,
  });
  const { screening } = comparison.decision;
  const changed = [...screening.p2f, ...screening.f2p].sort();
  const cases = comparison.baseline.cases;
  return {
    first,
    noise: { release: release.label, trials: config.trials, runs: [first.runId, second.runId], cases, flipRate: cases === 0 ? 0 : changed.length / cases, changed, comparison },
  };
}

/** Re-grades the same traces `repeats` times: the critic's own disagreement, apart from the agent's noise. */
export async function calibrateCritic(context: PipelineContext, run: RunResult, repeats: number): Promise<CriticNoise> {
  const { workspace } = context;
  const task = await workspace.files.tasks.loadTask(workspace.root, workspace.config.task);
  const taxonomy = workspace.store.taxonomy();
  const cases = new Map((await workspace.files.tasks.loadSplit(task, 'train')).map((c) => [c.id, c]));
  let graded = 0;
  let passSplit = 0;
  let failing = 0;
  let labelSplit = 0;
  const okRecords = function* () {
    for (const record of workspace.store.eachRecord(run.runId)) if (record.status === 'ok') yield record;
  };
  await eachPool(okRecords(), workspace.config.concurrency, async (record) => {
    const trace = await readTrace(workspace.tracesRoot, record.traceRef).catch((error: unknown) => {
      if (error instanceof TraceDamaged) return 'damaged' as const;
      throw error;
    });
    if (trace === null || trace === 'damaged') {
      const file = traceLocation(workspace.tracesRoot, record.traceRef).file;
      throw new AgentdevelError('INFRA', `${file}: the trace of ${record.caseId} (trial ${record.trial}) is ${trace === null ? 'missing' : 'damaged'}, so the critic cannot grade it again`, {
        hint: 'Traces live in traces/ (git-ignored) and only the store remembers the run: move .agentdevel/state.db aside so that the release runs again and its traces are recorded anew.',
      });
    }
    const again = [];
    for (let i = 0; i < repeats; i += 1) {
      const requirements = criticJudged(task.requirements, cases.get(record.caseId) ?? { id: record.caseId });
      again.push((await context.model.criticize({ model: workspace.config.models.critic, rubric: task.rubric, trace, scorer: record.scorer, taxonomy, ...(requirements.length > 0 ? { requirements } : {}) })).value);
    }
    const verdicts = record.critic ? [record.critic, ...again] : again;
    graded += 1;
    if (new Set(verdicts.map((v) => v.pass)).size > 1) passSplit += 1;
    if (verdicts.some((v) => !v.pass)) {
      failing += 1;
      if (new Set(verdicts.filter((v) => !v.pass).map((v) => v.label)).size > 1) labelSplit += 1;
    }
  });
  return {
    model: workspace.config.models.critic,
    records: graded,
    repeats,
    passDisagreement: graded === 0 ? 0 : passSplit / graded,
    labelDisagreement: failing === 0 ? 0 : labelSplit / failing,
  };
}
