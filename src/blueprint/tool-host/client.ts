import { fileURLToPath } from 'node:url';
import type { ToolSpec } from '../../domain/model-port.ts';
import { sandboxInvocation } from '../../process/sandbox.ts';
import { startIpcProcess, type IpcProcess } from '../../process/runner.ts';

const hostEntry = fileURLToPath(new URL('./host-entry.mjs', import.meta.url));

export interface HostBundles {
  readonly wrappers: string;
  readonly environment: string | null;
}

export interface ToolCallOutcome {
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: string;
}

export interface SessionEnd {
  readonly state: unknown;
}

/** The host died or stopped answering: blueprint code (a wrapper) is the usual cause. */
export class ToolHostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolHostError';
  }
}

export interface ToolHost {
  readonly tools: readonly ToolSpec[];
  open(session: string, caseData: unknown): Promise<{ opening: string | null }>;
  call(session: string, name: string, args: unknown): Promise<ToolCallOutcome>;
  reply(session: string, text: string): Promise<string | null>;
  close(session: string): Promise<SessionEnd>;
  stop(): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Starts a sandboxed tool host over the given bundles and waits until its wrappers are loaded
 * and checked. Throws ToolHostError when they do not load (the message names the file).
 */
export async function startToolHost(
  bundles: HostBundles,
  options: { callTimeoutMs: number; memoryMb: number },
): Promise<ToolHost> {
  const readable = [bundles.wrappers, ...(bundles.environment ? [bundles.environment] : [])];
  const child: IpcProcess = startIpcProcess(
    sandboxInvocation(hostEntry, { readable, writable: [] }, [bundles.wrappers, bundles.environment ?? '-'], options.memoryMb),
  );
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: string | null = null;
  let ready!: () => void;
  const readyPromise = new Promise<void>((resolve) => {
    ready = resolve;
  });

  child.onMessage((raw) => {
    const message = raw as { id: number; ok: boolean; value?: unknown; error?: string };
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
  });
  void child.exited.then((outcome) => {
    const tail = outcome.stderr.trim().split('\n').filter((l) => !/Warning|trace-warnings/.test(l)).slice(-3).join(' | ');
    dead = `the tool host exited (${outcome.signal ?? `code ${outcome.exitCode}`})${tail ? `: ${tail}` : ''}`;
    for (const waiting of pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new ToolHostError(dead));
    }
    pending.clear();
    ready();
  });

  const request = async (op: string, payload: Record<string, unknown> = {}): Promise<unknown> => {
    if (dead) throw new ToolHostError(dead);
    const id = nextId++;
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new ToolHostError(`the tool host did not answer "${op}" within ${options.callTimeoutMs} ms`));
        child.kill();
      }, options.callTimeoutMs);
      pending.set(id, { resolve, reject, timer });
    });
    await child.send({ id, op, ...payload }).catch(() => undefined);
    return answer;
  };

  await readyPromise;
  if (dead) throw new ToolHostError(dead);
  let tools: ToolSpec[];
  try {
    tools = ((await request('init')) as { tools: ToolSpec[] }).tools;
  } catch (error) {
    child.kill();
    throw error;
  }

  return {
    tools,
    open: async (session, caseData) => (await request('open', { session, case: caseData })) as { opening: string | null },
    call: async (session, name, args) => (await request('call', { session, name, args })) as ToolCallOutcome,
    reply: async (session, text) => ((await request('reply', { session, text })) as { reply: string | null }).reply,
    close: async (session) => (await request('close', { session })) as SessionEnd,
    stop: () => child.kill(),
  };
}
