// The tool hosts of a runtime. A host is a sandboxed Node process (about 50 MB resident), so
// one per case-trial in flight costs a gigabyte at concurrency 16. Hosts are shared instead:
// each serves many sessions at once (host-entry.mjs keeps one environment per session), and a
// run keeps a few of them, ceil(concurrency / SESSIONS_PER_HOST), at most MAX_HOSTS.
//
// What sessions of one host share is the host's module state: the wrappers and the task
// environment module are imported once per host, so a variable at module level, a cache or a
// change to globalThis is seen by every case-trial the host serves. Each session has its own
// environment (createEnvironment(case)), user and ctx. Blueprints whose wrappers keep state at
// module level run with `sandbox.isolation: "case"`: a fresh host per case-trial.
//
// A host that fails (a wrapper crashes it, hangs past the time limit, or breaks the memory
// limit, which all sessions of a host share) ends every session it serves, and only one of them
// may have caused it. So a failure of a shared host is never a verdict: each of its case-trials
// is played again, from its start, alone on a host of its own. Only a failure there is the case's
// own (the agent's failure, as before). The first attempt's trace is dropped (its model calls
// still count in the ledger).
import type { ToolSpec } from '../../../domain/ports/model.ts';
import type { TraceEvent } from '../../../domain/trace.ts';
import type { TraceSink } from '../../../domain/ports/runtime.ts';
import { ToolHostError, type ToolHost } from './client.ts';

/** "shared": case-trials share pooled hosts; "case": every case-trial gets a fresh host of its own. */
export type HostIsolation = 'shared' | 'case';

/** Sessions a shared host is given before another host starts. */
export const SESSIONS_PER_HOST = 8;
/** Most shared hosts a runtime keeps (and most case-trials played again alone at once). */
export const MAX_HOSTS = 4;

/** How many shared hosts a runtime keeps at a concurrency. */
export function hostCount(concurrency: number): number {
  return Math.min(MAX_HOSTS, Math.max(1, Math.ceil(concurrency / SESSIONS_PER_HOST)));
}

export interface HostPoolOptions {
  /** Starts one host (its wrappers loaded and checked). */
  readonly start: () => Promise<ToolHost>;
  readonly isolation: HostIsolation;
  /** Case-trials in flight at once. */
  readonly concurrency: number;
}

/** One case-trial on a host: it plays on `host`, and emits its events to `sink`. */
export type Attempt<T> = (host: ToolHost, sink: TraceSink) => Promise<T>;

export interface HostPool {
  /** The tools the wrappers define (read from the first host). */
  readonly tools: readonly ToolSpec[];
  /**
   * Plays one case-trial. Throws ToolHostError only when the case-trial failed on a host of its
   * own (the agent's failure), and ToolHostStartError when no host could be started.
   */
  play<T>(sink: TraceSink, attempt: Attempt<T>): Promise<T>;
  stop(): void;
}

interface Shared {
  readonly starting: Promise<ToolHost>;
  host: ToolHost | null;
  leases: number;
  /** Set once the host failed (or did not start): it takes no new sessions. */
  failed: boolean;
}

/** A bound on concurrent waits: the case-trials played again alone, so a crash cannot start a host per session at once. */
function slots(size: number) {
  let free = size;
  const waiting: Array<() => void> = [];
  return {
    async take(): Promise<void> {
      if (free > 0) {
        free -= 1;
        return;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    give(): void {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    },
  };
}

/** Events of an attempt that may be played again: held until it is known to count. */
function heldSink(): TraceSink & { readonly events: TraceEvent[] } {
  const events: TraceEvent[] = [];
  return { events, emit: (event) => events.push(event) };
}

/** Starts the pool with its first host (so wrappers that do not load fail here, once). */
export async function startHostPool(options: HostPoolOptions, first: ToolHost): Promise<HostPool> {
  const count = hostCount(options.concurrency);
  const perHost = Math.ceil(Math.max(1, options.concurrency) / count);
  const shared: Shared[] = [];
  const alone = new Set<ToolHost>();
  const retries = slots(count);
  let spare: ToolHost | null = first;
  let stopped = false;

  const addShared = (starting: Promise<ToolHost>): Shared => {
    const entry: Shared = { starting, host: null, leases: 0, failed: false };
    shared.push(entry);
    starting.then(
      (host) => {
        entry.host = host;
        if (stopped) host.stop();
        void host.ended.then(() => retire(entry));
      },
      () => retire(entry),
    );
    return entry;
  };
  const retire = (entry: Shared) => {
    entry.failed = true;
    const at = shared.indexOf(entry);
    if (at >= 0) shared.splice(at, 1);
  };
  if (options.isolation === 'shared') {
    addShared(Promise.resolve(first));
    spare = null;
  }

  /** The shared host with the fewest sessions, or a new one while the pool has room and every host is full. */
  const lease = (): Shared => {
    let best: Shared | null = null;
    for (const entry of shared) if (!entry.failed && (best === null || entry.leases < best.leases)) best = entry;
    const entry = best === null || (best.leases >= perHost && shared.length < count) ? addShared(options.start()) : best;
    entry.leases += 1;
    return entry;
  };

  /** A host of its own for one case-trial, stopped when it ends. */
  const playAlone = async <T>(sink: TraceSink, attempt: Attempt<T>): Promise<T> => {
    const host = spare ?? (await options.start());
    spare = null;
    alone.add(host);
    if (stopped) host.stop();
    try {
      return await attempt(host, sink);
    } finally {
      host.stop();
      alone.delete(host);
    }
  };

  const playShared = async <T>(sink: TraceSink, attempt: Attempt<T>): Promise<T> => {
    const entry = lease();
    const held = heldSink();
    let host: ToolHost | null = null;
    try {
      host = await entry.starting;
      const result = await attempt(host, held);
      for (const event of held.events) sink.emit(event);
      return result;
    } catch (error) {
      const hostFailed = error instanceof ToolHostError && (host === null || host.broken() !== null);
      if (!hostFailed) {
        for (const event of held.events) sink.emit(event);
        throw error;
      }
      // The host failed under several sessions, or could not start: this case-trial's part in
      // it is unknown. It is played again alone, and what happens there counts.
      retire(entry);
      host?.stop();
      await retries.take();
      try {
        return await playAlone(sink, attempt);
      } finally {
        retries.give();
      }
    } finally {
      entry.leases -= 1;
    }
  };

  return {
    tools: first.tools,
    play: (sink, attempt) => (options.isolation === 'case' ? playAlone(sink, attempt) : playShared(sink, attempt)),
    stop: () => {
      stopped = true;
      for (const entry of shared) entry.host?.stop();
      for (const host of alone) host.stop();
      spare?.stop();
      spare = null;
    },
  };
}
