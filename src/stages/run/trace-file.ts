import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseJson } from '../../domain/json.ts';
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
  // A write that fails (a full disk) is reported when the trace is closed, not as a crash.
  let failure: Error | null = null;
  stream.on('error', (error) => {
    failure ??= error;
  });
  return {
    emit(event) {
      if (failure === null) stream.write(`${redact(JSON.stringify(event))}\n`);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (failure !== null || stream.destroyed) {
          reject(failure ?? new Error(`${file}: the trace stream closed early`));
          return;
        }
        stream.end(() => (failure ? reject(failure) : resolve()));
      }),
  };
}

/** A trace file that exists but is not a trace (a torn write, a foreign file). */
export class TraceDamaged extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    reason: string,
  ) {
    super(`${file}:${line}: ${reason}`);
    this.name = 'TraceDamaged';
  }
}

/**
 * Reads one case-trial's trace back (one trace is small; a run's traces are never loaded
 * together). Null when the file is absent (traces/ is git-ignored and may be deleted); a file
 * that is there but damaged throws TraceDamaged.
 */
export async function readTrace(file: string): Promise<TraceEvent[] | null> {
  const events: TraceEvent[] = [];
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber += 1;
      if (!line.trim()) continue;
      const json = parseJson(line);
      if (!json.ok) throw new TraceDamaged(file, lineNumber, `not JSON: ${json.message}`);
      const parsed = traceEventSchema.safeParse(json.value);
      if (!parsed.success) throw new TraceDamaged(file, lineNumber, 'not a trace event');
      events.push(parsed.data);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return events;
}

/**
 * A trace for a reader that can go on without it (diagnosis): an absent or damaged trace is
 * read as empty and its file added to `unreadable`, so the caller can say so.
 */
export async function readTraceOrNote(file: string, unreadable: string[]): Promise<TraceEvent[]> {
  try {
    const trace = await readTrace(file);
    if (trace !== null) return trace;
  } catch (error) {
    if (!(error instanceof TraceDamaged)) throw error;
  }
  unreadable.push(file);
  return [];
}

/** File systems allow 255 bytes per name; the rest of the name needs a few. */
const MAX_SAFE_ID = 200;

/**
 * A file name per case-trial; two case ids never share a file. Any id works, including ones
 * that cannot be file names as they are (slashes, dots, control characters, a kilobyte long).
 */
export function traceFileName(caseId: string, trial: number): string {
  // Percent-encoding of UTF-8 bytes, like URLs: one-to-one, and no name starts with a dot.
  const safe = caseId.replace(/[^A-Za-z0-9_-]|^\./gu, (c) => [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));
  // Too long for a file name: a readable head and a hash of the whole id.
  const name = safe.length <= MAX_SAFE_ID ? safe : `${safe.slice(0, MAX_SAFE_ID - 34).replace(/%[0-9a-f]?$/, '')}~${createHash('sha256').update(caseId).digest('hex').slice(0, 32)}`;
  return `${name}.t${trial}.jsonl`;
}
