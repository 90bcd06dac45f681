// Where a run's traces are written: one block of trace lines per case-trial, each answered with
// the trace ref its record keeps (stages/run/trace-file.ts writes them as segment files).

/** The traces of one run, appended one case-trial at a time. */
export interface RunTraces {
  /** Writes one case-trial's lines as one block; returns its trace ref. */
  append(lines: readonly string[]): Promise<string>;
  /** Ends the open segment; rejects if any write failed (a full disk). */
  close(): Promise<void>;
  /** Ends the open segment of a run that failed: what was written stays, and a write error is not reported again. */
  abandon(): Promise<void>;
}
