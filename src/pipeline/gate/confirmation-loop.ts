// The release gate's loop: the gate (stages/gate/compare.ts) plans, this runs what it asks for,
// adds the fresh trials to its evidence, and asks again, until it decides. The gate never runs
// anything itself; the runner never decides.
import type { CaseSummary } from '../../domain/case-summary.ts';
import { beginConfirmation, finishGate, nextConfirmationStep, withRound, type ConfirmationInput, type FreshCases, type GatedComparison } from '../../stages/gate/compare.ts';
import type { ConfirmationRequest } from '../../stages/gate/confirmation.ts';
import type { CaseTrialTurns } from '../../domain/ports/case-trial-turns.ts';
import { pairedTurns, seededLeader } from './paired-turns.ts';

/** Fresh trials of some cases on one side: their summaries, and the runs that took them. */
export interface FreshTrials<Run> {
  readonly cases: ReadonlyMap<string, CaseSummary>;
  readonly runs: readonly Run[];
}

/**
 * Runs fresh trials of some cases on one side (the pipeline's runs, or a simulation's draws),
 * taking a turn of the round's pairs before each case-trial.
 */
export type ConfirmationRunner<Run> = (request: ConfirmationRequest, turns: CaseTrialTurns) => Promise<FreshTrials<Run>>;

/** How a round's pairs are started: at most `concurrency` case-trials of both sides at once, the order within each pair drawn from `seed`. */
export interface Pairing {
  readonly concurrency: number;
  readonly seed: string;
}

export interface Confirmed<Run> {
  readonly comparison: GatedComparison;
  /** Every run of fresh trials, in the order they finished. */
  readonly runs: readonly Run[];
}

/** Screening, then rounds of fresh trials of the selected cases until the gate decides. */
export async function confirmCandidate<Run>(input: ConfirmationInput, runner: ConfirmationRunner<Run>, pairing: Pairing = { concurrency: 1, seed: 'gate' }): Promise<Confirmed<Run>> {
  let session = beginConfirmation(input);
  const runs: Run[] = [];
  let index = 0;
  for (let step = nextConfirmationStep(session); step.kind === 'run'; step = nextConfirmationStep(session)) {
    index += 1;
    const round = await runRound(step.requests, runner, { ...pairing, seed: `${pairing.seed}:round ${index}` });
    runs.push(...round.runs);
    session = withRound(session, round.fresh);
  }
  return { comparison: finishGate(session), runs };
}

/**
 * One round: each side's requests in order, the two sides together, their case-trials started as
 * pairs (paired-turns.ts), so a change of the provider at any moment of the round lands on both
 * sides alike. Both sides settle before a failure propagates, so nothing is left running behind it.
 */
async function runRound<Run>(requests: readonly ConfirmationRequest[], runner: ConfirmationRunner<Run>, pairing: Pairing): Promise<{ fresh: FreshCases[]; runs: Run[] }> {
  const runs: Run[] = [];
  const turns = pairedTurns({ capacity: pairing.concurrency, leader: seededLeader(pairing.seed) });
  const settled = await Promise.allSettled(
    (['baseline', 'candidate'] as const).map(async (side) => {
      const fresh: FreshCases[] = [];
      try {
        for (const request of requests.filter((r) => r.side === side)) {
          const trials = await runChecked(runner, request, turns.side(side));
          runs.push(...trials.runs);
          fresh.push({ side: request.side, cases: trials.cases });
        }
      } finally {
        turns.finish(side);
      }
      return fresh;
    }),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return { fresh: settled.flatMap((s) => (s as PromiseFulfilledResult<FreshCases[]>).value), runs };
}

/** One request of the runner, checked: each round must add attempts, or the loop would not end. */
async function runChecked<Run>(runner: ConfirmationRunner<Run>, request: ConfirmationRequest, turns: CaseTrialTurns): Promise<FreshTrials<Run>> {
  const fresh = await runner(request, turns);
  const ran = [...fresh.cases.values()].reduce((sum, c) => sum + c.trials, 0);
  if (ran !== request.trials * request.caseIds.length) {
    throw new Error(`confirmation asked for ${request.trials} trials of ${request.caseIds.length} cases (${request.side}) and got ${ran} trials`);
  }
  return fresh;
}
