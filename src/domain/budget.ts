// A spend budget (`--budget`, or `budget` in the config) and the guard that holds a command to it.
// The guard is asked before every model request: when the request would pass the budget it is
// refused, and so is every later one, so work stops before the money is spent, never after.
// A refused request is an infrastructure failure (BudgetReached), never a fail of the agent.
import { AgentdevelError } from './errors.ts';
import { InfraError, type CallRole } from './ports/model.ts';

/**
 * Dollars of the cost ledger ("0.50usd"), model requests ("300req"), or case-trials ("400":
 * discover's rounds only, what the mock engine costs).
 */
export type Budget =
  | { readonly kind: 'usd'; readonly amount: number }
  | { readonly kind: 'requests'; readonly amount: number }
  | { readonly kind: 'caseTrials'; readonly amount: number };

export const BUDGET_SYNTAX = 'dollars of the cost ledger (e.g. 0.50usd), model requests (e.g. 300req) or case-trials (e.g. 400)';

/** Parses a budget as written; `where` names the option or key in the error (exit 2). */
export function parseBudget(value: string, where: string): Budget {
  const text = value.trim().toLowerCase().replace(/\s+/g, '');
  const usd = /^\$?(\d+(?:\.\d+)?)(usd)?$/.exec(text);
  if (usd && (text.startsWith('$') || usd[2] === 'usd') && Number(usd[1]) > 0) return { kind: 'usd', amount: Number(usd[1]) };
  const requests = /^(\d+)(req|requests)$/.exec(text);
  if (requests && Number(requests[1]) > 0) return { kind: 'requests', amount: Number(requests[1]) };
  const trials = /^(\d+)(case-trials)?$/.exec(text);
  if (trials && Number(trials[1]) > 0) return { kind: 'caseTrials', amount: Number(trials[1]) };
  throw new AgentdevelError('USAGE', `${where}: expected ${BUDGET_SYNTAX}, above 0; got "${value}"`);
}

export function budgetText(budget: Budget): string {
  if (budget.kind === 'usd') return `$${budget.amount.toFixed(2)}`;
  return budget.kind === 'requests' ? `${budget.amount} requests` : `${budget.amount} case-trials`;
}

/** A request the budget refused: the work stops here, and nothing it would have decided is decided. */
export class BudgetReached extends InfraError {
  constructor(role: CallRole, message: string) {
    super(role, message);
    this.name = 'BudgetReached';
  }
}

export interface Spent {
  readonly requests: number;
  readonly costUsd: number;
}

export interface SpendGuard {
  readonly budget: Budget | null;
  /** Before a model request: throws BudgetReached when it would pass the budget (and from then on). */
  beforeRequest(role: CallRole): void;
  /**
   * After a request ended. A failed one is no longer in flight; an answered one stays reserved
   * until the ledger charges it (its cost is known only then).
   */
  settled(role: CallRole, answered: boolean): void;
  /** What an answered request cost, as the ledger charges it. */
  charge(role: CallRole, costUsd: number): void;
  /** True once a request was refused. */
  reached(): boolean;
  /** Requests refused so far (a case-trial that saw one was cut short by the budget). */
  refusals(): number;
  spent(): Spent;
}

/**
 * Sends one model request under the guard (none: sent as is). Refused before it leaves, so a
 * budget is never passed by a request sent; reserved until it is answered and charged, or failed.
 */
export async function sendWithin<T>(guard: SpendGuard | undefined, role: CallRole, send: () => Promise<T>): Promise<T> {
  if (!guard) return send();
  guard.beforeRequest(role);
  let answered = false;
  try {
    const answer = await send();
    answered = true;
    return answer;
  } finally {
    guard.settled(role, answered);
  }
}

/**
 * The guard of one command. A dollar budget refuses a request when what was spent, plus what the
 * requests not yet charged may cost, plus this one, would pass it. The cost of a request is known
 * only after its answer, so each is reserved at the most a request of its role has cost so far
 * (of any role, for a role not seen yet): a synthesizer's long answer is never priced at a
 * critic's. A request stays reserved from before it is sent until the ledger charges it, so no
 * moment between its answer and its charge lets another request through on a lower total.
 */
export function spendGuard(budget: Budget | null): SpendGuard {
  let requests = 0;
  let charged = 0;
  let costUsd = 0;
  let refused = 0;
  let firstWhy = '';
  let reserved = 0;
  let mostOfAny = 0;
  const mostByRole = new Map<CallRole, number>();
  /** The reservations of each role's requests not yet charged, oldest first. */
  const open = new Map<CallRole, number[]>();
  const estimate = (role: CallRole): number => mostByRole.get(role) ?? mostOfAny;
  const release = (role: CallRole): void => {
    const held = open.get(role)?.shift();
    if (held !== undefined) reserved = Math.max(0, reserved - held);
  };
  const passes = (role: CallRole): string | null => {
    if (budget === null || budget.kind === 'caseTrials') return null;
    if (budget.kind === 'requests') return requests + 1 > budget.amount ? `${requests} of ${budget.amount} requests sent` : null;
    const projected = costUsd + reserved + estimate(role);
    return costUsd >= budget.amount || projected > budget.amount ? `$${costUsd.toFixed(4)} of $${budget.amount.toFixed(2)} spent, and the next request would pass it` : null;
  };
  const passedByCharges = (): boolean => {
    if (budget === null || budget.kind === 'caseTrials') return false;
    return budget.kind === 'requests' ? Math.max(requests, charged) > budget.amount : costUsd > budget.amount;
  };
  return {
    budget,
    beforeRequest(role) {
      // Once one request is refused, every later one is too (for the same reason): the work stops as a whole.
      const why = refused > 0 ? firstWhy : passes(role);
      if (why !== null) {
        refused += 1;
        firstWhy = why;
        throw new BudgetReached(role, `budget reached (${budgetText(budget as Budget)}): ${why}`);
      }
      requests += 1;
      const held = estimate(role);
      reserved += held;
      const queued = open.get(role);
      if (queued) queued.push(held);
      else open.set(role, [held]);
    },
    settled(role, answered) {
      if (!answered) release(role);
    },
    charge(role, cost) {
      charged += 1;
      costUsd += cost;
      mostByRole.set(role, Math.max(mostByRole.get(role) ?? 0, cost));
      mostOfAny = Math.max(mostOfAny, cost);
      release(role);
    },
    // Requests this guard never saw (case-trials on a queue's workers) are known only by their
    // charge: once those pass the budget, no further work starts either.
    reached: () => refused > 0 || passedByCharges(),
    refusals: () => refused,
    spent: () => ({ requests, costUsd }),
  };
}

/** The one line a command that the budget stopped ends with (exit 3): nothing was decided. */
export function budgetReachedError(guard: SpendGuard): AgentdevelError {
  const spent = guard.spent();
  const budget = guard.budget ? budgetText(guard.budget) : 'the budget';
  return new AgentdevelError('BUDGET_REACHED', `undecided: budget reached (${budget}; ${spent.requests} requests sent, $${spent.costUsd.toFixed(4)} spent): work stopped before the next request, and nothing was decided`);
}
