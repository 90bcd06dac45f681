import type { Config } from '../../config/schema.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import { poolCaseSummaries, type CaseSummary } from '../../domain/case-summary.ts';
import { secondLookCases } from '../../stages/gate/screening.ts';
import type { Task } from '../../domain/task.ts';
import type { ComparePolicy, GatedComparison } from '../../stages/gate/compare.ts';
import type { ConfirmationRequest } from '../../stages/gate/confirmation.ts';
import type { CaseTrialTurns } from '../../domain/ports/case-trial-turns.ts';
import { confirmCandidate, type ConfirmationRunner } from './confirmation-loop.ts';
import { lazyCheckout, type VersionSource } from '../workspace/checkout.ts';
import { openVersion, type BaselineScreen, type RunResult, type VersionSession } from '../run/execute-run.ts';
import type { PipelineContext } from '../context.ts';

export function comparePolicy(config: Config): ComparePolicy {
  return { ...config.gate };
}

export interface CandidateEvaluation extends GatedComparison {
  readonly candidateRun: RunResult;
  /** Confirmation runs (fresh trials of the selected cases), each with its side. */
  readonly confirmRuns: readonly ConfirmRun[];
}

export interface ConfirmRun extends RunResult {
  readonly side: ConfirmationRequest['side'];
}

/**
 * Runs the RC over the same train cases and trials as the baseline (the screen), then lets the
 * gate ask for fresh trials of the selected cases, on both sides together, until it can decide.
 * The baseline's screen is its stored records, so a decision costs the candidate's run plus the
 * confirmation, which grows with the number of selected cases, not with the train set.
 */
export async function evaluateCandidate(
  context: PipelineContext,
  input: { baseline: BaselineScreen; baselineCommit: string; candidate: VersionSource; label: string; intent: ChangeIntent | null; task: Task },
): Promise<CandidateEvaluation> {
  const { config, store } = context.workspace;
  // The candidate's task is the one the gate loaded from the same checkout: its runs do not load it again.
  const candidate = openVersion(context, input.candidate, { task: input.task });
  // The baseline is checked out and loaded only if the gate asks for fresh baseline trials.
  const baselineCheckout = lazyCheckout(context.workspace, input.baselineCommit);
  const opened: { baseline: Promise<VersionSession> | null } = { baseline: null };
  try {
    const candidateRun = await candidate.run({ split: 'train', trials: config.trials, purpose: 'candidate', label: input.label });
    // A second look where every record and the candidate passed (a mature agent's soft breaks hide from one trial).
    const again = secondLookCases(input.baseline.cases, candidateRun.cases, config.gate.secondLook);
    const secondLook =
      again.length === 0
        ? null
        : await candidate.run({ split: 'train', trials: config.trials, purpose: 'candidate', cases: again, firstTrial: config.trials, label: `${input.label} (second look at ${again.length} case${again.length === 1 ? '' : 's'} every record passed)` });
    const versions = {
      candidate: async () => candidate,
      baseline: () => (opened.baseline ??= baselineCheckout.source().then((source) => openVersion(context, source))),
    };
    const records = input.baseline.records.length;
    const { comparison, runs } = await confirmCandidate(
      {
        baseline: input.baseline.cases,
        candidate: secondLook ? poolCaseSummaries([candidateRun.cases, secondLook.cases]) : candidateRun.cases,
        policy: comparePolicy(config),
        noise: { variedCases: store.variedCases(candidateRun.taskTree) },
        intent: input.intent,
        screeningTrials: config.trials,
        records,
      },
      // Fresh trials come after every trial number either side used: the records, and the second look's.
      confirmationRunner(context, versions, { label: input.label, firstTrial: (secondLook ? Math.max(records, 2) : records) * config.trials }),
      // The order within each pair is drawn from the two commits: the same gate runs its pairs alike.
      { concurrency: config.concurrency, seed: `${input.baselineCommit}:${input.candidate.commit}` },
    );
    return { ...comparison, candidateRun, confirmRuns: runs };
  } finally {
    await candidate.close();
    if (opened.baseline) await (await opened.baseline).close();
    await baselineCheckout.close();
  }
}

/**
 * Runs what the gate's planner asks for and returns the runs. Fresh trials are numbered after
 * every trial either side already had (the baseline's records, earlier rounds), so each is a new
 * draw: the runner keeps the next trial number of each case and side.
 */
function confirmationRunner(
  context: PipelineContext,
  versions: Record<ConfirmationRequest['side'], () => Promise<VersionSession>>,
  options: { readonly label: string; readonly firstTrial: number },
): ConfirmationRunner<ConfirmRun> {
  const nextTrial = new Map<string, number>();
  // Each side may use all of it: the round's turns keep both sides together within `concurrency`.
  const { concurrency } = context.workspace.config;
  return async (request: ConfirmationRequest, turns: CaseTrialTurns) => {
    const version = await versions[request.side]();
    const byFirstTrial = new Map<number, string[]>();
    for (const caseId of request.caseIds) {
      const first = nextTrial.get(`${request.side}:${caseId}`) ?? options.firstTrial;
      byFirstTrial.set(first, [...(byFirstTrial.get(first) ?? []), caseId]);
      nextTrial.set(`${request.side}:${caseId}`, first + request.trials);
    }
    const fresh = new Map<string, CaseSummary>();
    const runs: ConfirmRun[] = [];
    for (const [firstTrial, cases] of byFirstTrial) {
      const run = await version.run({
        split: 'train',
        trials: request.trials,
        purpose: 'confirm',
        cases,
        firstTrial,
        concurrency,
        turns,
        label: `${request.side === 'candidate' ? options.label : 'baseline'} (confirming ${cases.length} case${cases.length === 1 ? '' : 's'}, ${request.trials} fresh trial${request.trials === 1 ? '' : 's'} each)`,
      });
      runs.push({ ...run, side: request.side });
      for (const [caseId, summary] of run.cases) fresh.set(caseId, summary);
    }
    return { cases: fresh, runs };
  };
}
