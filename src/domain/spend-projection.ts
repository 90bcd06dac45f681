// What a command is expected to spend, projected from the cost ledger's history before any work
// starts: the case-trials it plans (a range: a cached baseline, the gate's confirmation rounds)
// times what a case-trial cost in the runs recorded so far, plus what an iteration's other work
// (diagnosis, synthesis, the reviewer) cost. Pure: the pipeline gathers the plan and the history.
import type { SpendHistory } from './ports/record-store.ts';

export interface Range {
  readonly low: number;
  readonly expected: number;
  readonly high: number;
}

/** The work a command plans, as far as it can be known before it starts. */
export interface PlannedWork {
  readonly command: string;
  readonly caseTrials: Range;
  /** What the case-trials are for, in words ("candidate 16", "baseline: 2 of 3 records recorded"). */
  readonly parts: readonly string[];
  /** Iterations' other work: how many times, and which roles (all roles outside runs, or some). */
  readonly outsideRuns: { readonly times: number; readonly roles: readonly string[] | 'all' };
  /** Requests with no history of their own (discover's judge and writer), at most. */
  readonly extraRequests?: number;
}

export interface Projection {
  readonly command: string;
  readonly basis: string;
  readonly parts: readonly string[];
  readonly caseTrials: Range;
  readonly requests: Range;
  readonly tokens: Range;
  readonly costUsd: Range;
}

type Per = { readonly requests: number; readonly tokens: number; readonly costUsd: number };
const ZERO: Per = { requests: 0, tokens: 0, costUsd: 0 };
const keys = ['requests', 'tokens', 'costUsd'] as const;

function spread(values: readonly Per[], mean: Per): { low: Per; expected: Per; high: Per } {
  if (values.length === 0) return { low: ZERO, expected: ZERO, high: ZERO };
  const pick = (f: (xs: number[]) => number): Per => ({
    requests: f(values.map((v) => v.requests)),
    tokens: f(values.map((v) => v.tokens)),
    costUsd: f(values.map((v) => v.costUsd)),
  });
  return { low: pick((xs) => Math.min(...xs)), expected: mean, high: pick((xs) => Math.max(...xs)) };
}

/** The projection, or null when the ledger has no run to learn from (a first run projects nothing). */
export function projectSpend(history: SpendHistory, work: PlannedWork): Projection | null {
  const runs = history.runs.filter((r) => r.caseTrials > 0);
  if (runs.length === 0) return null;
  const total = runs.reduce((t, r) => ({ requests: t.requests + r.requests, tokens: t.tokens + r.tokens, costUsd: t.costUsd + r.costUsd, caseTrials: t.caseTrials + r.caseTrials }), { ...ZERO, caseTrials: 0 });
  // A case-trial's cost: the mean over every recorded case-trial, bounded by the cheapest and dearest run.
  const perCaseTrial = spread(
    runs.map((r) => ({ requests: r.requests / r.caseTrials, tokens: r.tokens / r.caseTrials, costUsd: r.costUsd / r.caseTrials })),
    { requests: total.requests / total.caseTrials, tokens: total.tokens / total.caseTrials, costUsd: total.costUsd / total.caseTrials },
  );
  const byIteration = new Map<number, Per>();
  for (const row of history.outsideRuns) {
    if (work.outsideRuns.roles !== 'all' && !work.outsideRuns.roles.includes(row.role)) continue;
    const seen = byIteration.get(row.iteration) ?? ZERO;
    byIteration.set(row.iteration, { requests: seen.requests + row.requests, tokens: seen.tokens + row.tokens, costUsd: seen.costUsd + row.costUsd });
  }
  const iterations = [...byIteration.values()];
  const meanOutside = iterations.length === 0 ? ZERO : { requests: avg(iterations, 'requests'), tokens: avg(iterations, 'tokens'), costUsd: avg(iterations, 'costUsd') };
  const perIteration = spread(iterations, meanOutside);
  const times = work.outsideRuns.times;
  const at = (which: 'low' | 'expected' | 'high'): Per => {
    const n = work.caseTrials[which];
    const extra = which === 'high' ? (work.extraRequests ?? 0) : which === 'expected' ? (work.extraRequests ?? 0) / 2 : 0;
    return {
      requests: n * perCaseTrial[which].requests + times * perIteration[which].requests + extra,
      tokens: n * perCaseTrial[which].tokens + times * perIteration[which].tokens,
      costUsd: n * perCaseTrial[which].costUsd + times * perIteration[which].costUsd,
    };
  };
  const [low, expected, high] = [at('low'), at('expected'), at('high')];
  const range = (k: (typeof keys)[number]): Range => ({ low: low[k], expected: expected[k], high: high[k] });
  const basis = `the cost ledger's ${runs.length} run${runs.length === 1 ? '' : 's'} (${total.caseTrials} case-trials)${iterations.length > 0 ? ` and ${iterations.length} iteration${iterations.length === 1 ? '' : 's'}` : ''}`;
  return { command: work.command, basis, parts: work.parts, caseTrials: work.caseTrials, requests: range('requests'), tokens: range('tokens'), costUsd: range('costUsd') };
}

function avg(values: readonly Per[], key: (typeof keys)[number]): number {
  return values.reduce((sum, v) => sum + v[key], 0) / values.length;
}

const whole = (x: number): string => Math.round(x).toLocaleString('en-US');
const dollars = (x: number): string => `$${x.toFixed(2)}`;

/** The projection in lines for a person: the expected figure first, then its range. */
export function projectionLines(projection: Projection | null, command: string): string[] {
  if (projection === null) return [`projection for ${command}: none yet: the cost ledger holds no run to learn from (the first run's spend becomes the history)`];
  const { requests, tokens, costUsd, caseTrials } = projection;
  return [
    `projection for ${command}, from ${projection.basis}:`,
    `  case-trials: ${whole(caseTrials.expected)} (${whole(caseTrials.low)}–${whole(caseTrials.high)})${projection.parts.length > 0 ? `: ${projection.parts.join('; ')}` : ''}`,
    `  requests: ${whole(requests.expected)} (${whole(requests.low)}–${whole(requests.high)})`,
    `  tokens: ${whole(tokens.expected)} (${whole(tokens.low)}–${whole(tokens.high)})`,
    `  cost: ${dollars(costUsd.expected)} (${dollars(costUsd.low)}–${dollars(costUsd.high)})`,
  ];
}
