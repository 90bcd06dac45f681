import type { GateDecision } from '../../domain/decision.ts';

/** The paired test in words: which pairs it read, how many went each way, and its p-value. */
export function aggregateText(aggregate: GateDecision['aggregate']): string {
  const pairs = aggregate.source === 'fresh' ? "moved cases' first fresh pairs" : 'moved cases';
  return `${aggregate.worse} of the ${aggregate.worse + aggregate.better} ${pairs} that differ dropped: one-sided sign test p = ${aggregate.pValue.toFixed(4)}`;
}
