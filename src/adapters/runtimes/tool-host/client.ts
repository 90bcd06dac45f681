import { fileURLToPath } from 'node:url';
import type { ToolSpec } from '../../../domain/ports/model.ts';
import { brokenLimit, sandboxInvocation } from '../../process/sandbox.ts';
import { stderrCause } from '../../process/stderr-tail.ts';
import { startIpcProcess, type IpcProcess, type ProcessOutcome } from '../../process/runner.ts';

const hostEntry = fileURLToPath(new URL('./host-entry.mjs', import.meta.url));

export interface HostBundles {
  readonly wrappers: string;
  readonly environment: string | null;
}

export interface ToolCallOutcome {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: string;
  /** Whether the environment's state changed with the call (absent when the task exposes no state). */
  readonly stateChanged?: boolean;
}

export interface SessionEnd {
  readonly state: unknown;
}

/** The host died or stopped answering: blueprint code (a wrapper) is the usual cause. */
export class ToolHostError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolHostError';
  }
}

/** The host process could not be started at all (no Node, no shell): not the blueprint's doing. */
export class ToolHostStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolHostStartError';
  }
}

export interface ToolHost {
  readonly tools: readonly ToolSpec[];
  open(session: string, caseData: unknown): Promise<{ opening: string | null }>;
  call(session: string, name: string, args: unknown): Promise<ToolCallOutcome>;
  /** The user's reply; null when the user has nothing more to say, which also ends the session. */
  reply(session: string, text: string): Promise<{ readonly reply: string } | { readonly reply: null; readonly end: SessionEnd }>;
  close(session: string): Promise<SessionEnd>;
  /** Drops a session that will not be finished (its case-trial failed elsewhere); nothing is awaited. */
  discard(session: string): void;
  /**
   * Why the host can no longer serve (it died, or was stopped at a time limit or by `stop`), or
   * null while it can. Set before any request fails for that reason, so a caller that catches a
   * ToolHostError can tell a host that failed from one operation that failed.
   */
  broken(): string | null;
  /** Resolves when the host process has ended, whatever the reason. */
  readonly ended: Promise<void>;
  stop(): void;
}

interface Answer {
  readonly id: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: string;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** How a host that ended tells its story: the limit it broke, or its exit and last words. */
function endOf(outcome: ProcessOutcome, limits: { callTimeoutMs: number; memoryMb: number }): string {
  const broken = brokenLimit(outcome, { timeoutMs: limits.callTimeoutMs, memoryMb: limits.memoryMb });
  if (broken) return `the tool host ${/^(killed|stopped)/.test(broken) ? 'was ' : ''}${broken}`;
  // Its error's first line and where (file:line), so a crash keeps its cause.
  const cause = stderrCause(outcome.stderr);
  const tail = cause === null ? '' : `: ${cause}`;
  return `the tool host exited (${outcome.signal ?? `code ${outcome.exitCode}`})${tail}`;
}

/**
 * Starts a sandboxed tool host over the given bundles and waits until its wrappers are loaded
 * and checked. Throws ToolHostError when they do not load (the message names the file), and
 * ToolHostStartError when no process could be started. Every wait is bounded by
 * `callTimeoutMs`, and the host is stopped on every failure path.
 */
export async function startToolHost(
  bundles: HostBundles,
  options: { callTimeoutMs: number; memoryMb: number },
): Promise<ToolHost> {
  const readable = [bundles.wrappers, ...(bundles.environment ? [bundles.environment] : [])];
  const invocation = await sandboxInvocation(hostEntry, { readable, writable: [] }, [bundles.wrappers, bundles.environment ?? '-'], options.memoryMb);
  const child: IpcProcess = startIpcProcess(invocation);
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: string | null = null;
  /** Set when this side ends the host (a time limit, a closed channel, `stop`), before it has exited. */
  let stopping: string | null = null;
  const kill = (why: string) => {
    stopping ??= why;
    child.kill();
  };
  let spawnError: string | null = null;
  let ready!: () => void;
  const readyPromise = new Promise<void>((resolve) => {
    ready = resolve;
  });

  const answered = (message: Answer) => {
    if (message.id === 0) {
      ready();
      return;
    }
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(new ToolHostError(message.error ?? 'tool host error'));
  };
  // The host answers in batches (see host-entry.mjs), and so do we ask.
  child.onMessage((raw) => {
    const message = raw as Answer | { batch: Answer[] };
    for (const one of 'batch' in message ? message.batch : [message]) answered(one);
  });
  const ended = child.exited.then((outcome) => {
    spawnError = outcome.spawnError;
    dead = endOf(outcome, options);
    for (const waiting of pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new ToolHostError(dead));
    }
    pending.clear();
    ready();
  });

  /**
   * Requests made in one turn of the event loop go to the host as one IPC message: each message
   * is a write to the channel and a wake-up of the host, the largest cost per case-trial here
   * once many sessions share a host.
   */
  let outbox: Array<{ id: number } & Record<string, unknown>> = [];
  const flush = () => {
    const batch = outbox;
    outbox = [];
    child.send(batch.length === 1 ? batch[0] : { batch }).catch((cause: unknown) => {
      // The channel is closed: the host is gone or going. Fail these calls now rather than at their timers.
      kill(dead ?? 'the tool host stopped listening');
      for (const { id } of batch) {
        const waiting = pending.get(id);
        if (!waiting) continue;
        pending.delete(id);
        clearTimeout(waiting.timer);
        waiting.reject(new ToolHostError(dead ?? 'the tool host stopped listening', { cause }));
      }
    });
  };
  const post = (message: { id: number } & Record<string, unknown>) => {
    if (outbox.length === 0) setImmediate(flush);
    outbox.push(message);
  };

  const request = async (op: string, payload: Record<string, unknown> = {}): Promise<unknown> => {
    if (dead) throw new ToolHostError(dead);
    const id = nextId++;
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        const why = `the tool host did not answer "${op}" within ${options.callTimeoutMs} ms (the time limit)`;
        kill(why);
        reject(new ToolHostError(why));
      }, options.callTimeoutMs);
      pending.set(id, { resolve, reject, timer });
    });
    post({ id, op, ...payload });
    return answer;
  };

  let tools: ToolSpec[];
  let stateless = false;
  try {
    let startTimer: NodeJS.Timeout | undefined;
    const started = await Promise.race([
      readyPromise.then(() => true),
      new Promise<false>((resolve) => {
        startTimer = setTimeout(() => resolve(false), options.callTimeoutMs);
      }),
    ]);
    clearTimeout(startTimer);
    if (spawnError) throw new ToolHostStartError(`the tool host could not start: ${spawnError}`);
    if (dead) throw new ToolHostError(dead);
    if (!started) throw new ToolHostError(`the tool host did not start within ${options.callTimeoutMs} ms (the time limit)`);
    const loaded = (await request('init')) as { tools: ToolSpec[]; stateless?: boolean };
    tools = loaded.tools;
    stateless = loaded.stateless === true;
  } catch (error) {
    kill('the tool host did not start');
    throw error;
  }

  /**
   * Without a task environment the host keeps nothing per session (no opening, no user, no
   * state): opening, answering for the user and ending such a session are done here, and only
   * tool calls travel. A case-trial that calls no tool then costs the host no message at all (two
   * round trips each, the largest cost of a 100,000-case run's main thread). A host that died
   * still fails those sessions, as a request to it would.
   */
  const local = async <T>(value: T): Promise<T> => {
    if (dead) throw new ToolHostError(dead);
    return value;
  };
  return {
    tools,
    open: async (session, caseData) => (stateless ? local({ opening: null }) : ((await request('open', { session, case: caseData })) as { opening: string | null })),
    call: async (session, name, args) => (await request('call', { session, name, args })) as ToolCallOutcome,
    reply: async (session, text) => {
      if (stateless) return local({ reply: null, end: { state: null } });
      const answer = (await request('reply', { session, text })) as { reply: string | null; state?: unknown };
      return answer.reply === null ? { reply: null, end: { state: answer.state ?? null } } : { reply: answer.reply };
    },
    close: async (session) => (stateless ? local({ state: null }) : ((await request('close', { session })) as SessionEnd)),
    discard: (session) => {
      if (dead !== null || stopping !== null || stateless) return;
      // Id -1 is never awaited.
      post({ id: -1, op: 'discard', session });
    },
    broken: () => dead ?? stopping,
    ended: ended.then(() => undefined),
    stop: () => kill('the tool host was stopped'),
  };
}
