// The trace cost of AutoEvolve (R_cost, its eq. 7): what a trajectory spent, from its events
// alone. R_cost = α·steps + β·(repeated identical tool calls) + ζ·(steps that changed no
// state), with the paper's α = 0.01, β = 0.05, ζ = 0.1 unless the task sets its own.
import { canonicalJson } from '../../domain/json.ts';
import type { TraceEvent } from '../../domain/trace.ts';

export interface CostWeights {
  readonly steps: number;
  readonly repeats: number;
  readonly noops: number;
}

export const PAPER_COST_WEIGHTS: CostWeights = { steps: 0.01, repeats: 0.05, noops: 0.1 };

export interface TraceCost {
  /** Agent invocations: model turns (`llm` events), or actions (tool calls and assistant messages) when the agent reports none. */
  readonly steps: number;
  /** Tool calls with the same name and arguments as an earlier call of the same trace. */
  readonly repeats: number;
  /** Tool calls after which the environment's state was unchanged (only where the task exposes state). */
  readonly noops: number;
  readonly cost: number;
}

export function traceCost(trace: readonly TraceEvent[], weights: CostWeights = PAPER_COST_WEIGHTS): TraceCost {
  const turns = trace.filter((e) => e.type === 'llm').length;
  const actions = trace.filter((e) => e.type === 'tool_call' || (e.type === 'message' && e.role === 'assistant')).length;
  const steps = turns > 0 ? turns : actions;
  const seen = new Set<string>();
  let repeats = 0;
  for (const event of trace) {
    if (event.type !== 'tool_call') continue;
    const key = `${event.name}\u0000${canonicalJson(event.args ?? null)}`;
    if (seen.has(key)) repeats += 1;
    else seen.add(key);
  }
  const noops = trace.filter((e) => e.type === 'tool_result' && e.stateChanged === false).length;
  const cost = weights.steps * steps + weights.repeats * repeats + weights.noops * noops;
  // Rounded to the precision the weights have, so equal traces always print equal costs.
  return { steps, repeats, noops, cost: Math.round(cost * 1e9) / 1e9 };
}
