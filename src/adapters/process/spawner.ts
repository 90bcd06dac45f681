// Starts short-lived processes (`command` agents, one per case-trial) through small helper
// processes, the spawners, instead of from agentdevel's own large process. A spawner is the
// containment launcher's `serve` mode where there is a launcher (launcher/contain.c: a fork of
// a small process per start, and a contained launch without a further exec), else a Node
// process (spawner-entry.mjs); both answer in the same JSON lines.
// Starting a process blocks the thread that starts it until the child has exec'd (a loaded
// machine makes that several milliseconds), so a run with concurrency uses a few spawners side
// by side: each one a Node process of about 40 MB, started when the others are all busy.
// The kill rules are runner.ts's and hold as before: the spawner applies them to each child
// (own process group, time limit, group kill at exit, output grace), and this side tracks every
// child it hears of, so the children are killed when agentdevel exits, however it exits. A
// contained request (untrusted.ts) in a PID namespace needs nothing more; under the process-table
// fallback this side follows the child's descendants while it runs and kills them at its exit.
// The channel is newline-delimited JSON over the spawner's stdin and stdout, not Node's IPC:
// each side writes what one turn of its event loop produced in one write, and a short agent's
// output lines come with its exit (spawner-entry.mjs), so a case-trial costs about one write
// each way instead of four IPC messages with execa's bookkeeping around each.
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { CONTAINMENT_VARIABLE, killGroup, trackChild } from './children.ts';
import { watchDescendants, type DescendantWatch } from './descendants.ts';
import { startPipeProcess, type PipeProcess, type ProcessOutcome, type ProcessRequest } from './runner.ts';

const entry = fileURLToPath(new URL('./spawner-entry.mjs', import.meta.url));

/** How long the spawner may take to start (it is plain Node, a few milliseconds on a calm machine). */
const START_TIMEOUT_MS = 20_000;
const MAX_STDERR_BYTES = 1024 * 1024;
/** How long closing waits for a spawner to end its children and exit, before killing it. */
const CLOSE_TIMEOUT_MS = 2000;

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
  /** Starts every spawner now (they start with the runs otherwise) and waits until each is ready, bounded. */
  prepare(): Promise<void>;
  /** Stops the spawners and everything they still run; settles once they have exited (bounded). */
  close(): Promise<void>;
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
      /** Output lines not sent yet: they come before the exit. */
      readonly lines: readonly string[];
      readonly exitCode: number | null;
      readonly signal: string | null;
      readonly timedOut: boolean;
      readonly stderr: string;
      readonly spawnError: string | null;
    };

interface Helper {
  readonly process: PipeProcess;
  /** Requests of this turn of the event loop, written together. */
  outgoing: string[];
  readonly ready: Promise<void>;
  /** Runs it has in flight. */
  readonly pending: Map<number, Pending>;
  /** Runs given to it that wait for it to be ready. */
  waiting: number;
  dead: string | null;
}

export interface LineRunnerOptions {
  /**
   * The containment launcher's binary (containment-launcher.ts), when there is one: its `serve`
   * mode is the spawner then, and a request to run the launcher itself runs it without an exec.
   */
  readonly launcher?: string | null;
}

/**
 * A request in the launcher's framing: a header line, then the working folder, argv and env as
 * NUL-terminated strings, then the input (launcher/contain.c, `serve`).
 */
function launcherRequest(id: number, request: ProcessRequest, env: Readonly<Record<string, string>>, maxStderrBytes: number): string {
  const strings = [request.cwd ?? '', request.command, ...request.args, ...Object.entries(env).map(([name, value]) => `${name}=${value}`)];
  const payload = `${strings.map((text) => `${text}\0`).join('')}${request.input ?? ''}`;
  const envCount = Object.keys(env).length;
  return `run ${id} ${request.timeoutMs === undefined ? -1 : Math.ceil(request.timeoutMs)} ${maxStderrBytes} ${request.args.length + 1} ${envCount} ${Buffer.byteLength(payload)}\n${payload}`;
}

/**
 * A line runner backed by up to `spawners` spawners, started as they are needed (and again if
 * one is lost): the launcher's `serve` where there is a launcher, else spawner-entry.mjs.
 */
export function startLineRunner(spawners = 1, options: LineRunnerOptions = {}): LineRunner {
  let nextId = 1;
  const helpers: Helper[] = [];
  /** Once closed, no spawner is started again: one would outlive the close. */
  let closed = false;

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

  /** Hands output lines to the run's handler; a handler that throws stops the process. */
  const deliver = (waiting: Pending, lines: readonly string[]) => {
    if (waiting.handlerError) return;
    for (const line of lines) {
      try {
        waiting.onLine(line);
      } catch (error) {
        waiting.handlerError = { error };
        if (waiting.group !== null) killGroup(waiting.group);
        return;
      }
    }
  };

  const onMessage = (pending: Map<number, Pending>, message: SpawnerMessage) => {
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
        deliver(waiting, message.lines);
        return;
      case 'exit': {
        deliver(waiting, message.lines);
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
    const child = options.launcher
      ? startPipeProcess({ command: options.launcher, args: ['serve'], env: {} }, { endsWithParent: true })
      : startPipeProcess({ command: process.execPath, args: [entry], env: {} }, { endsWithParent: true });
    let readyNow!: () => void;
    const ready = new Promise<void>((resolve) => {
      readyNow = resolve;
    });
    const current: Helper = { process: child, outgoing: [], ready, pending: new Map(), waiting: 0, dead: null };
    let partial = '';
    child.onText((chunk) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const part of parts) {
        if (part === '') continue;
        const message = JSON.parse(part) as SpawnerMessage;
        if (message.type === 'ready') readyNow();
        onMessage(current.pending, message);
      }
    });
    void child.exited.then((outcome) => {
      lose(current, outcome.spawnError ?? `exit ${outcome.signal ?? outcome.exitCode}${outcome.stderr.trim() ? `: ${outcome.stderr.trim().split('\n').at(-1)}` : ''}`);
      readyNow();
    });
    return current;
  };

  /** Writes the requests of this turn to a spawner, in one write. */
  const flush = (current: Helper) => {
    if (current.outgoing.length === 0) return;
    const text = current.outgoing.join('');
    current.outgoing = [];
    // The pipe is closed: the spawner is gone or going; its exit fails the runs it had.
    if (!current.process.write(text) && !current.dead) lose(current, 'it stopped reading its input');
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
      if (closed) throw new SpawnerLost('the process spawners were closed');
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
      const env = { ...request.env, ...(marker ? { [CONTAINMENT_VARIABLE]: marker } : {}) };
      // The launcher's framing ends each string at a NUL byte (as exec does: Node refuses them too).
      if (options.launcher && [request.command, ...request.args, ...Object.entries(env).flat()].some((text) => text.includes('\0'))) {
        current.pending.delete(id);
        return { exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, spawnError: 'an argument or environment variable holds a NUL byte' };
      }
      const maxStderrBytes = request.maxOutputBytes ?? MAX_STDERR_BYTES;
      const message = options.launcher
        ? launcherRequest(id, request, env, maxStderrBytes)
        : `${JSON.stringify({ op: 'run', id, command: request.command, args: request.args, cwd: request.cwd, env, input: request.input ?? '', timeoutMs: request.timeoutMs ?? null, maxStderrBytes })}\n`;
      if (current.outgoing.length === 0) setImmediate(() => flush(current));
      current.outgoing.push(message);
      return outcome;
    },
    async prepare() {
      if (closed) throw new SpawnerLost('the process spawners were closed');
      while (helpers.length < spawners) helpers.push(start());
      await Promise.all(helpers.map(ready));
    },
    async close() {
      closed = true;
      const closing = helpers.splice(0);
      await Promise.all(
        closing.map(async (helper) => {
          flush(helper);
          // The spawner ends its children and itself when its input ends; killed past the bound.
          helper.process.endInput();
          let timer: NodeJS.Timeout | undefined;
          const exited = await Promise.race([
            helper.process.exited.then(() => true),
            new Promise<false>((resolve) => {
              timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS);
            }),
          ]);
          clearTimeout(timer);
          if (!exited) helper.process.kill();
        }),
      );
    },
  };
}
