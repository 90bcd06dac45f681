// Traces on disk. A run's traces go to a few large JSON-lines files, its segments:
//   traces/<run>/part-0001.jsonl, part-0002.jsonl, …   (a new segment every SEGMENT_BYTES)
// Each case-trial's events are one contiguous block of lines there (the first is its `start`
// event), written once when the case-trial ends. The record of a case-trial points at its block:
//   trace_ref = "<run>/part-0001.jsonl#<byte offset>+<byte length>"
// so the store's records table is the index by case-trial, and reading one trace is one read.
// Older workspaces wrote one file per case-trial (trace_ref "<run>/<case>.t<trial>.jsonl", no
// "#"): those refs still read, as the whole file.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseJson } from '../../domain/json.ts';
import { traceEventSchema, type TraceEvent } from '../../domain/trace.ts';
import type { RunTraces } from '../../domain/ports/run-traces.ts';

/** A segment grows to about this size before the next one starts. */
export const SEGMENT_BYTES = 64 * 1024 * 1024;
/** Blocks are gathered to about this size before they are written (one write per case-trial is the slow part). */
const WRITE_BYTES = 256 * 1024;

/** Writes a run's traces as segment files under `tracesRoot/<run>/`. */
export function openRunTraces(tracesRoot: string, runId: string, segmentBytes = SEGMENT_BYTES): RunTraces {
  const dir = path.join(tracesRoot, runId);
  let segment: { name: string; stream: WriteStream; bytes: number; unwritten: string[]; unwrittenBytes: number } | null = null;
  let count = 0;
  const ending: Array<Promise<void>> = [];
  // A write that fails is reported by the next append or by close, not as an unhandled error.
  let failure: Error | null = null;

  const end = (stream: WriteStream): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (stream.destroyed) {
        reject(failure ?? new Error(`${dir}: a trace segment closed early`));
        return;
      }
      stream.end(() => (failure ? reject(failure) : resolve()));
    });
  const start = () => {
    if (count === 0) mkdirSync(dir, { recursive: true });
    count += 1;
    const name = `part-${String(count).padStart(4, '0')}.jsonl`;
    const stream = createWriteStream(path.join(dir, name), { flags: 'w' });
    stream.on('error', (error) => {
      failure ??= error;
    });
    return { name, stream, bytes: 0, unwritten: [], unwrittenBytes: 0 };
  };
  const write = async (open: NonNullable<typeof segment>) => {
    if (open.unwritten.length === 0) return;
    const text = open.unwritten.join('');
    open.unwritten = [];
    open.unwrittenBytes = 0;
    if (!open.stream.write(text)) await drained(open.stream);
  };

  return {
    async append(lines) {
      if (failure) throw failure;
      const block = `${lines.join('\n')}\n`;
      const length = Buffer.byteLength(block);
      if (segment && segment.bytes > 0 && segment.bytes + length > segmentBytes) {
        const full = segment;
        segment = null;
        await write(full);
        ending.push(end(full.stream));
      }
      segment ??= start();
      const ref = `${runId}/${segment.name}#${segment.bytes}+${length}`;
      segment.bytes += length;
      segment.unwritten.push(block);
      segment.unwrittenBytes += length;
      if (segment.unwrittenBytes >= WRITE_BYTES) await write(segment);
      if (failure) throw failure;
      return ref;
    },
    async close() {
      const last = segment;
      segment = null;
      if (last) {
        await write(last);
        ending.push(end(last.stream));
      }
      await Promise.all(ending);
    },
    async abandon() {
      const last = segment;
      segment = null;
      if (last && !last.stream.destroyed) last.stream.write(last.unwritten.join(''));
      const open = last?.stream;
      if (open && !open.destroyed) await new Promise<void>((resolve) => open.once('close', () => resolve()).end());
      // Earlier segments were ended already; their outcome belongs to the failure being reported.
      await Promise.allSettled(ending);
    },
  };
}

/** Waits until a stream takes writes again, or is gone (its error is then the failure). */
function drained(stream: WriteStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** A trace that exists but is not a trace (a torn write, a foreign file, a ref past the end). */
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

/** Where a trace ref points: a whole file (older workspaces) or a block of a segment. */
export function traceLocation(tracesRoot: string, traceRef: string): { file: string; range: { offset: number; length: number } | null } {
  const match = /^(.*)#(\d+)\+(\d+)$/.exec(traceRef);
  if (!match) return { file: path.join(tracesRoot, traceRef), range: null };
  return { file: path.join(tracesRoot, match[1] as string), range: { offset: Number(match[2]), length: Number(match[3]) } };
}

/**
 * Reads one case-trial's trace (one trace is small; a run's traces are never loaded together).
 * Null when it is absent (traces/ is git-ignored and may be deleted); a trace that is there but
 * damaged throws TraceDamaged.
 */
export async function readTrace(tracesRoot: string, traceRef: string): Promise<TraceEvent[] | null> {
  const { file, range } = traceLocation(tracesRoot, traceRef);
  let text: string;
  try {
    text = range ? await readRange(file, range.offset, range.length) : await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const events: TraceEvent[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = (lines[index] as string).replace(/\r$/, '');
    if (!line.trim()) continue;
    // A line of the file, or of the block in a segment (named by its byte offset).
    const where = index + 1;
    const json = parseJson(line);
    if (!json.ok) throw new TraceDamaged(describeRef(file, range), where, `not JSON: ${json.message}`);
    const parsed = traceEventSchema.safeParse(json.value);
    if (!parsed.success) throw new TraceDamaged(describeRef(file, range), where, 'not a trace event');
    events.push(parsed.data);
  }
  return events;
}

const describeRef = (file: string, range: { offset: number; length: number } | null): string => (range ? `${file}@${range.offset}` : file);

async function readRange(file: string, offset: number, length: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, offset + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    if (read < length) throw new TraceDamaged(`${file}@${offset}`, 1, `the segment ends ${length - read} bytes before the end of this trace (a torn write)`);
    if (buffer[length - 1] !== 0x0a) throw new TraceDamaged(`${file}@${offset}`, 1, 'the trace does not end at a line end (the segment was changed)');
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * A trace for a reader that can go on without it (diagnosis): an absent or damaged trace is
 * read as empty and its ref added to `unreadable`, so the caller can say so.
 */
export async function readTraceOrNote(tracesRoot: string, traceRef: string, unreadable: string[]): Promise<TraceEvent[]> {
  try {
    const trace = await readTrace(tracesRoot, traceRef);
    if (trace !== null) return trace;
  } catch (error) {
    if (!(error instanceof TraceDamaged)) throw error;
  }
  unreadable.push(traceLocation(tracesRoot, traceRef).file);
  return [];
}
