// Starts short-lived processes (`command` agents, one per case-trial) through small helper
// processes, the spawners (spawner-entry.mjs), instead of from agentdevel's own large process.
// Starting a process blocks the thread that starts it until the child has exec'd (a loaded
// machine makes that several milliseconds), so a run with concurrency uses a few spawners side
// by side: each one a Node process of about 40 MB, started when the others are all busy.
// The kill rules are runner.ts's and hold as before: the spawner applies them to each child
// (own process group, time limit, group kill at exit, output grace), and this side tracks every
// child it hears of, so the children are killed when agentdevel exits, however it exits. A
// contained request (untrusted.ts) in a PID namespace needs nothing more; under the process-table
// fallback this side follows the child's descendants while it runs and kills them at its exit.
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { CONTAINMENT_VARIABLE, killGroup, trackChild } from './children.ts';
import { watchDescendants, type DescendantWatch } from './descendants.ts';
import { startIpcProcess, type IpcProcess, type ProcessOutcome, type ProcessRequest } from './runner.ts';

const entry = fileURLToPath(new URL('./spawner-entry.mjs', import.meta.url));

/** How long the spawner may take to start (it is plain Node, a few milliseconds on a calm machine). */
const START_TIMEOUT_MS = 20_000;
const MAX_STDERR_BYTES = 1024 * 1024;

/** The spawner process went away: no fault of the agent (an infrastructure failure of this machine). */
export class SpawnerLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpawnerLost';
  }
}

export interface LineRunner {
  /**
   * Runs a process to completion and hands each stdout line to `onLine` as it arrives. A
   * non-zero exit is an outcome; a handler that throws stops the process and rethrows.
   */
  run(request: ProcessRequest, onLine: (line: string) => void): Promise<ProcessOutcome>;
  /** Stops the spawner and everything it still runs. */
  close(): void;
}

interface Pending {
  readonly onLine: (line: string) => void;
  readonly resolve: (outcome: ProcessOutcome) => void;
  readonly reject: (error: unknown) => void;
  group: number | null;
  untrack: (() => void) | null;
  handlerError: { error: unknown } | null;
  /** Set when the request asked for the process-table containment: its marker, then its watch once started. */
  readonly marker: string | null;
  descendants: DescendantWatch | null;
}

type SpawnerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'started'; readonly id: number; readonly pid: number }
  | { readonly type: 'lines'; readonly id: number; readonly lines: readonly string[] }
  | {
      readonly type: 'exit';
      readonly id: number;
      readonly exitCode: number | null;
      readonly signal: string | null;
      readonly timedOut: boolean;
      readonly stderr: string;
      readonly spawnError: string | null;
    };

interface Helper {
  readonly process: IpcProcess;
  readonly ready: Promise<void>;
  /** Runs it has in flight. */
  readonly pending: Map<number, Pending>;
  /** Runs given to it that wait for it to be ready. */
  waiting: number;
  dead: string | null;
}

/**
 * A line runner backed by up to `spawners` spawners, started as they are needed (and again if
 * one is lost).
 */
export function startLineRunner(spawners = 1): LineRunner {
  let nextId = 1;
  const helpers: Helper[] = [];

  const lose = (current: Helper, reason: string) => {
    current.dead = reason;
    const index = helpers.indexOf(current);
    if (index >= 0) helpers.splice(index, 1);
    for (const [id, waiting] of current.pending) {
      // Its children may outlive it: they are stopped here, as the spawner would have.
      if (waiting.group !== null) killGroup(waiting.group);
      waiting.descendants?.stop();
      waiting.untrack?.();
      waiting.reject(new SpawnerLost(`the process spawner stopped (${reason}) while case-trial process ${id} ran`));
    }
    current.pending.clear();
  };

  const onMessage = (pending: Map<number, Pending>, raw: unknown) => {
    const message = raw as SpawnerMessage;
    if (message.type === 'ready') return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    switch (message.type) {
      case 'started':
        waiting.group = message.pid;
        waiting.untrack = trackChild(message.pid);
        if (waiting.marker !== null) waiting.descendants = watchDescendants(message.pid, waiting.marker);
        return;
      case 'lines':
        if (waiting.handlerError) return;
        for (const line of message.lines) {
          try {
            waiting.onLine(line);
          } catch (error) {
            waiting.handlerError = { error };
            if (waiting.group !== null) killGroup(waiting.group);
            return;
          }
        }
        return;
      case 'exit': {
        pending.delete(message.id);
        waiting.descendants?.stop();
        waiting.untrack?.();
        if (waiting.handlerError) {
          waiting.reject(waiting.handlerError.error);
          return;
        }
        const { exitCode, signal, timedOut, stderr, spawnError } = message;
        waiting.resolve({ exitCode, signal, stdout: '', stderr, timedOut, spawnError });
        return;
      }
      default: {
        const exhaustive: never = message;
        return exhaustive;
      }
    }
  };

  const start = (): Helper => {
    // The spawner needs nothing of agentdevel's environment; each child gets its own, complete.
    // It ends itself and its children when the channel closes, which also happens when
    // agentdevel is killed outright; at a normal exit, its children are killed from here too.
    const child = startIpcProcess({ command: process.execPath, args: [entry], env: {} }, { endsWithParent: true });
    let readyNow!: () => void;
    const ready = new Promise<void>((resolve) => {
      readyNow = resolve;
    });
    const current: Helper = { process: child, ready, pending: new Map(), waiting: 0, dead: null };
    child.onMessage((message) => {
      if ((message as SpawnerMessage).type === 'ready') readyNow();
      onMessage(current.pending, message);
    });
    void child.exited.then((outcome) => {
      lose(current, outcome.spawnError ?? `exit ${outcome.signal ?? outcome.exitCode}${outcome.stderr.trim() ? `: ${outcome.stderr.trim().split('\n').at(-1)}` : ''}`);
      readyNow();
    });
    return current;
  };

  /** The least busy spawner; a new one when every one is busy and there is room for another. */
  const pick = (): Helper => {
    const load = (h: Helper) => h.pending.size + h.waiting;
    const idlest = helpers.reduce<Helper | null>((best, h) => (best === null || load(h) < load(best) ? h : best), null);
    if (idlest && (load(idlest) === 0 || helpers.length >= spawners)) return idlest;
    const fresh = start();
    helpers.push(fresh);
    return fresh;
  };

  /** Waits, with a bound, until a spawner is ready. */
  const ready = async (current: Helper): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const started = await Promise.race([
      current.ready.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!started) {
      current.process.kill();
      throw new SpawnerLost(`the process spawner did not start within ${START_TIMEOUT_MS} ms`);
    }
    if (current.dead) throw new SpawnerLost(`the process spawner could not start: ${current.dead}`);
  };

  return {
    async run(request, onLine) {
      const current = pick();
      // The run counts against its spawner from now on, so runs started together spread out.
      current.waiting += 1;
      try {
        await ready(current);
      } finally {
        current.waiting -= 1;
      }
      if (current.dead) throw new SpawnerLost(`the process spawner stopped: ${current.dead}`);
      const id = nextId++;
      const marker = request.contain === 'process-table' ? randomBytes(12).toString('hex') : null;
      const outcome = new Promise<ProcessOutcome>((resolve, reject) => {
        current.pending.set(id, { onLine, resolve, reject, group: null, untrack: null, handlerError: null, marker, descendants: null });
      });
      current.process
        .send({
          op: 'run',
          id,
          command: request.command,
          args: [...request.args],
          cwd: request.cwd,
          env: { ...request.env, ...(marker ? { [CONTAINMENT_VARIABLE]: marker } : {}) },
          input: request.input ?? '',
          timeoutMs: request.timeoutMs ?? null,
          maxStderrBytes: request.maxOutputBytes ?? MAX_STDERR_BYTES,
        })
        .catch((cause: unknown) => {
          // The channel is closed: the spawner is gone or going; its exit fails this run.
          if (!current.dead) lose(current, `it stopped listening: ${(cause as Error).message}`);
        });
      return outcome;
    },
    close() {
      for (const helper of helpers.splice(0)) helper.process.kill();
    },
  };
}
