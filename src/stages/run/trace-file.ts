import { createReadStream, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { traceEventSchema, type TraceEvent } from '../../domain/trace.ts';
import type { Redactor } from '../../process/environment.ts';

/**
 * Appends trace events to a JSON-lines file as they happen, so a run never holds its traces
 * in memory and a crashed run still leaves what it did. Secrets are redacted on the way out.
 */
export interface TraceWriter {
  emit(event: TraceEvent): void;
  close(): Promise<void>;
}

export function openTraceWriter(file: string, redact: Redactor): TraceWriter {
  mkdirSync(path.dirname(file), { recursive: true });
  const stream: WriteStream = createWriteStream(file, { flags: 'w' });
  return {
    emit(event) {
      stream.write(`${redact(JSON.stringify(event))}\n`);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Reads one case-trial's trace back (one trace is small; a run's traces are never loaded together). */
export async function readTrace(file: string): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const parsed = traceEventSchema.safeParse(JSON.parse(line));
    if (parsed.success) events.push(parsed.data);
  }
  return events;
}

/** A file name per case-trial; the escaping is one-to-one, so two case ids never share a file. */
export function traceFileName(caseId: string, trial: number): string {
  // Percent-encoding of UTF-8 bytes, like URLs: one-to-one, and no name starts with a dot.
  const safe = caseId.replace(/[^A-Za-z0-9_-]|^\./gu, (c) => [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));
  return `${safe}.t${trial}.jsonl`;
}
