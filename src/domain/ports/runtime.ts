import type { Case } from '../case.ts';
import type { TraceEvent } from '../trace.ts';

/** What a runtime saw of the task environment at the end of a case-trial (the scorers grade it). */
export interface Observation {
  /** The environment's final state, when the runtime has an environment. */
  readonly state: unknown;
  /** The state the case's expected actions produce. */
  readonly expectedState: unknown;
}

export interface TraceSink {
  emit(event: TraceEvent): void;
}

export interface CaseOutcome {
  readonly output: unknown;
  readonly observation: Observation | null;
}

/**
 * Runs one case-trial of a blueprint and streams its trace into `sink`. Agent failures are
 * part of the outcome (and the trace); only infrastructure failures throw (InfraError).
 */
export interface Runtime {
  runCase(testCase: Case, trial: number, sink: TraceSink): Promise<CaseOutcome>;
  close(): Promise<void>;
}

/** Fields of a case that grade the agent; the agent never sees them. */
export const HIDDEN_CASE_FIELDS = ['expected'] as const;

export function visibleCase(testCase: Case): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...testCase };
  for (const field of HIDDEN_CASE_FIELDS) delete copy[field];
  return copy;
}
