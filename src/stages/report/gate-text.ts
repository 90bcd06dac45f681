import type { GateDecision } from '../../domain/decision.ts';

/** The paired test in words: which pairs it read, how many went each way, and its p-value. */
export function aggregateText(aggregate: GateDecision['aggregate']): string {
  const pairs = aggregate.source === 'fresh' ? "moved cases' first fresh pairs" : 'moved cases';
  return `${aggregate.worse} of the ${aggregate.worse + aggregate.better} ${pairs} that differ dropped: one-sided sign test p = ${aggregate.pValue.toFixed(4)}`;
}

/** Who let a release onto the line, in the same words in the changelog and the index: the person who approved it, else the gate alone. */
export function approverText(approvedBy: string | null | undefined): string {
  return approvedBy ?? 'the gate (no approval layer)';
}
