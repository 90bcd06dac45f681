import type { Case } from '../case.ts';
import type { TraceEvent } from '../trace.ts';
import type { ScorerConfig } from '../task-manifest.ts';

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
  /**
   * Starts now what the first case-trial would start (a `command` agent's spawners), so a worker
   * that prepares a version before its first job leaves nothing of it to that job. Optional: a
   * runtime that starts everything as it starts has none.
   */
  prepare?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Fields of every case that grade the agent: its expected outcome and its own requirements (the
 * critic and the requirements layer judge them). The agent never sees them, nor the queue.
 */
export const GRADING_FIELDS = ['expected', 'requirements'] as const;

/**
 * Every path of a case the grading reads: the grading fields, plus each path a task's scorer takes
 * its answer from (`expectedFromCase`, `patternFromCase`), which may lie anywhere in the case.
 * A `script` scorer reads the whole case: it should keep its answers under `expected`.
 */
export function caseGradingPaths(scorers: readonly ScorerConfig[]): string[] {
  const paths = new Set<string>(GRADING_FIELDS);
  for (const scorer of scorers) {
    if (scorer.kind === 'numeric' && scorer.expectedFromCase !== undefined) paths.add(scorer.expectedFromCase);
    if (scorer.kind === 'regex' && scorer.patternFromCase !== undefined) paths.add(scorer.patternFromCase);
  }
  // The id names the case-trial everywhere (traces, records); it is never an answer.
  paths.delete('id');
  return [...paths].sort();
}

/** `value` without what `path` names (copied along the path only; absent parts are left alone). */
function without(value: unknown, path: readonly string[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined || value === null || typeof value !== 'object' || !Object.hasOwn(value, head)) return value;
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as unknown as Record<string, unknown>) : { ...(value as Record<string, unknown>) };
  if (rest.length === 0) delete copy[head];
  else copy[head] = without(copy[head], rest);
  return copy;
}

/** The case as the agent sees it: without any of `gradingPaths` (dot paths, as `caseGradingPaths` gives them). */
export function visibleCase(testCase: Case, gradingPaths: readonly string[]): Case {
  let visible: unknown = testCase;
  for (const dotPath of gradingPaths) visible = without(visible, dotPath.split('.'));
  return visible as Case;
}
