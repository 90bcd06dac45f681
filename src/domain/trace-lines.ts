// A case-trial's trace as the lines a trace file holds: one redacted JSON event per line. The
// run stage records its case-trials' traces this way, and so does an importer of external results.
import type { Redactor } from './environment.ts';
import type { TraceSink } from './ports/runtime.ts';
import type { TraceEvent } from './trace.ts';

/**
 * A case-trial's trace, kept in memory while it runs (a trace is bounded by the step budget).
 * Secrets are redacted as each event arrives; `lines` is what gets written, `events` is what
 * the scorers and the critic read: the same events, as a reader of the file would get them.
 */
export interface TraceRecorder extends TraceSink {
  readonly lines: readonly string[];
  events(): TraceEvent[];
}

export function recordTrace(redact: Redactor): TraceRecorder {
  const lines: string[] = [];
  return {
    lines,
    emit(event) {
      lines.push(redact(JSON.stringify(event)));
    },
    // Parsed back from the written lines, so graders see exactly what the file holds (redacted,
    // without undefined fields), as they did when traces were read back from disk.
    events: () => lines.map((line) => JSON.parse(line) as TraceEvent),
  };
}
