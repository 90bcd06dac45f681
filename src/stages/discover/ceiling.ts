// What a discover session may cost at most, stated before it starts, and the budget rule that
// stops it early. Pure.

import type { Budget } from '../../domain/budget.ts';

/** A budget in dollars (the cost ledger's figure), requests, or case-trials (what the mock engine costs). */
export type { Budget } from '../../domain/budget.ts';

export interface DiscoverPlan {
  readonly rounds: number;
  readonly top: number;
  readonly designCases: number;
  readonly trials: number;
  readonly warmupRounds: number;
  readonly warmupCases: number;
}

export interface Ceiling {
  /** Case-trials one round may take: its team on the design split, and one new member's warm-up runs. */
  readonly perRound: number;
  readonly caseTrials: number;
  /** One judge request per team member per case-trial it was called in, at most. */
  readonly judgeRequests: number;
  /** A new member and its warm-up revisions each round, then one orchestrator prompt. */
  readonly writerRequests: number;
}

export function discoverCeiling(plan: DiscoverPlan): Ceiling {
  const design = plan.designCases * plan.trials;
  const warmup = plan.warmupRounds * Math.min(plan.warmupCases, plan.designCases) * plan.trials;
  const perRound = design + warmup;
  return {
    perRound,
    caseTrials: plan.rounds * perRound,
    judgeRequests: plan.rounds * design * plan.top,
    writerRequests: plan.rounds * (1 + plan.warmupRounds) + 1,
  };
}

/**
 * Why the next round must not start, or null. A case-trial budget stops a round whose worst case
 * would pass it; a dollar budget stops once the ledger's spend reaches it, or once the dearest
 * round so far would pass it (a round's dollars are known only after it ran).
 */
export function budgetStop(budget: Budget | null, spent: { readonly caseTrials: number; readonly usd: number; readonly dearestRoundUsd: number }, perRound: number): string | null {
  // A request budget is held by the spend guard, request by request (domain/budget.ts).
  if (budget === null || budget.kind === 'requests') return null;
  if (budget.kind === 'caseTrials') {
    return spent.caseTrials + perRound > budget.amount
      ? `budget: ${spent.caseTrials} of ${budget.amount} case-trials spent, and a round may take ${perRound}`
      : null;
  }
  if (spent.usd >= budget.amount) return `budget: $${spent.usd.toFixed(4)} of $${budget.amount.toFixed(2)} spent`;
  if (spent.usd + spent.dearestRoundUsd > budget.amount) {
    return `budget: $${spent.usd.toFixed(4)} of $${budget.amount.toFixed(2)} spent, and the dearest round so far cost $${spent.dearestRoundUsd.toFixed(4)}`;
  }
  return null;
}
