// The one module that imports execa (house rule 6), for the long-lived children that talk over
// Node's IPC channel; processes run to completion and pipe processes use Node's spawn. Every
// subprocess agentdevel starts (tool hosts, command agents, diagnosis scripts, custom scorers,
// git) goes through here, so the environment scrubbing and the kill rules live in one place:
// - each child leads its own process group (its own session), so a signal it sends to "its
//   group" never reaches agentdevel, and stopping it stops everything it started;
// - every wait has a bound: the time limit kills the whole group, and once the child itself
//   has exited its leftovers are killed and its output streams are closed after a short grace,
//   so a grandchild that keeps stdout open cannot hold the command;
// - children still running when agentdevel exits (an error, an interrupt) are killed.
import { execa, type ResultPromise } from 'execa';
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { CONTAINMENT_VARIABLE, killGroup, killMarked, trackChild, type AtExit } from './children.ts';
import { watchDescendants } from './descendants.ts';

/**
 * How an untrusted process is kept from outliving itself (untrusted.ts chooses): in a PID
 * namespace of its own (the kernel ends what is left), or by following its descendants in the
 * process table while it runs.
 */
export type Containment = 'pid-namespace' | 'process-table';

export interface ProcessRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** The complete environment of the child. Nothing is inherited from agentdevel's own. */
  readonly env: Readonly<Record<string, string>>;
  readonly input?: string;
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  /**
   * Untrusted code that may start processes (see untrusted.ts): its processes are marked in their
   * environment; under process-table its descendants are followed while it runs. Once it has
   * exited, every one still running is killed, also one that left the process group (setsid).
   */
  readonly contain?: Containment;
  /**
   * Still running when agentdevel exits: killed (the default), or asked to end first and killed
   * half a second later ('terminate': git, which removes its lock files when asked to end).
   */
  readonly atExit?: AtExit;
}

export interface ProcessOutcome {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Set when the process could not be started at all (missing executable, bad cwd). */
  readonly spawnError: string | null;
  /** Set when it was stopped for its output: the bound (in bytes) that output passed. */
  readonly outputCutAt?: number;
}

/** How long a child's output may stay open after the child itself has exited. */
const OUTPUT_GRACE_MS = 1000;

function baseOptions(request: ProcessRequest) {
  return {
    cwd: request.cwd,
    env: { ...request.env },
    extendEnv: false,
    reject: false,
    detached: true,
    stripFinalNewline: false,
  };
}

interface Supervision {
  readonly timedOut: () => boolean;
}

/**
 * Applies the kill rules to a started child: the time limit, the group kill once the child
 * exits, the bounded wait for its output, and the kill at agentdevel's exit.
 */
function supervise(subprocess: ChildProcess, timeoutMs: number | undefined, atExit: AtExit | null = 'kill'): Supervision {
  const pid = subprocess.pid;
  let timedOut = false;
  if (pid === undefined) return { timedOut: () => false };
  const untrack = atExit ? trackChild(pid, atExit) : () => undefined;
  const timer =
    timeoutMs === undefined
      ? null
      : setTimeout(() => {
          timedOut = true;
          killGroup(pid);
        }, timeoutMs);
  subprocess.once('exit', () => {
    if (timer) clearTimeout(timer);
    // Whatever the child started dies with it: a case's process tree ends with the case.
    killGroup(pid);
    const grace = setTimeout(() => {
      // A process that left the group (setsid) may still hold the pipes: stop reading them.
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
    }, OUTPUT_GRACE_MS);
    subprocess.once('close', () => clearTimeout(grace));
  });
  subprocess.once('close', untrack);
  return { timedOut: () => timedOut };
}

/**
 * Runs a process to completion. A non-zero exit is an outcome, not an exception. It is started
 * with Node's own spawn, not execa: agentdevel starts many short processes (git above all), and
 * execa's machinery cost about 2.5 ms of CPU more per process than the process itself (3.5
 * against 1.0 ms for `git rev-parse`).
 */
export async function runProcess(request: ProcessRequest): Promise<ProcessOutcome> {
  const marker = request.contain ? randomBytes(12).toString('hex') : null;
  const env: Record<string, string> = { ...request.env };
  if (marker) env[CONTAINMENT_VARIABLE] = marker;
  const maxBytes = request.maxOutputBytes ?? 16 * 1024 * 1024;
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(request.command, [...request.args], { cwd: request.cwd, env, detached: true, stdio: 'pipe' });
  } catch (error) {
    // Refused before any process was made (a NUL byte in an argument, say).
    return { exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, spawnError: error instanceof Error ? error.message : String(error) };
  }
  let spawnError: string | null = null;
  // Heard at once: a start that fails emits it on the next tick (no such program, no file
  // descriptor left), and an 'error' without a listener would end agentdevel.
  const failedStart = new Promise<void>((resolve) => {
    child.on('error', (error) => {
      // Only a process that never started: it emits no 'close' of its own. (agentdevel never
      // signals it through the child object nor talks to it over IPC, the other sources of 'error'.)
      if (child.pid !== undefined) return;
      spawnError ??= error.message;
      resolve();
    });
  });
  // Out of file descriptors, Node makes no pipes at all: the start failed.
  if (!child.stdout || !child.stderr || !child.stdin) {
    await failedStart;
    return { exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, spawnError };
  }
  let overflowed = false;
  const collect = (stream: NodeJS.ReadableStream) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    // A pipe that fails ends the output there; the process's end is still what is reported.
    stream.on('error', () => undefined);
    stream.on('data', (chunk: Buffer) => {
      if (overflowed) return;
      bytes += chunk.length;
      if (bytes > maxBytes) {
        // Past the bound the process is stopped: what it printed so far is kept.
        overflowed = true;
        chunks.push(chunk.subarray(0, chunk.length - (bytes - maxBytes)));
        if (child.pid !== undefined) killGroup(child.pid);
        return;
      }
      chunks.push(chunk);
    });
    return () => Buffer.concat(chunks).toString('utf8');
  };
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    void failedStart.then(() => resolve({ code: null, signal: null }));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const supervision = supervise(child, request.timeoutMs, request.atExit ?? 'kill');
  const descendants = request.contain === 'process-table' && child.pid !== undefined ? watchDescendants(child.pid, marker) : null;
  // Its input, whole, then closed (a process that does not read it may close it first: EPIPE is fine).
  child.stdin.on('error', () => undefined);
  child.stdin.end(request.input ?? '');
  const { code, signal } = await closed;
  if (descendants) descendants.stop();
  else if (marker) killMarked(marker);
  return {
    // Output cut at the bound is no success, even from a process that exited 0 before the kill.
    exitCode: spawnError === null && !overflowed ? code : null,
    signal: spawnError === null ? signal : null,
    stdout: stdout(),
    // Killed for its output: said where its own words are read.
    stderr: `${stderr()}${overflowed ? `\nagentdevel: stopped, its output passed ${maxBytes} bytes\n` : ''}`,
    ...(overflowed ? { outputCutAt: maxBytes } : {}),
    timedOut: supervision.timedOut(),
    spawnError,
  };
}

interface RawResult {
  exitCode?: number;
  signal?: string;
  stdout?: unknown;
  stderr?: unknown;
  failed?: boolean;
  code?: string;
  originalMessage?: string;
  message?: string;
}

function toOutcome(result: RawResult, supervision: Supervision): ProcessOutcome {
  const timedOut = supervision.timedOut();
  const spawnFailed = result.failed === true && result.exitCode === undefined && !result.signal && !timedOut;
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
    timedOut,
    spawnError: spawnFailed ? (result.originalMessage ?? result.message ?? 'could not start the process') : null,
  };
}

/** A long-lived child that exchanges JSON messages over Node's IPC channel. */
export interface IpcProcess {
  send(message: unknown): Promise<void>;
  onMessage(listener: (message: unknown) => void): void;
  /** Resolves when the process exits, with how it ended and its stderr tail. */
  readonly exited: Promise<ProcessOutcome>;
  /** Stops the process and everything it started. */
  kill(): void;
}

/**
 * Starts a long-lived child that talks over Node's IPC channel. `endsWithParent` is for
 * agentdevel's own helpers that end themselves, and what they started, when the channel closes
 * (agentdevel exited or died): they are left to do that rather than killed at exit, so they can.
 */
export function startIpcProcess(request: ProcessRequest, options: { readonly endsWithParent?: boolean } = {}): IpcProcess {
  const subprocess: ResultPromise = execa(request.command, [...request.args], {
    ...baseOptions(request),
    ipc: true,
    serialization: 'json',
    stdin: 'ignore',
    stdout: 'ignore',
    // The messages are handled as they arrive; execa must not also keep every one of them for
    // its result (a tool host or the spawner exchanges several per case-trial, for hours).
    buffer: { stderr: true, ipc: false },
    maxBuffer: { stderr: 256 * 1024 },
  });
  const supervision = supervise(subprocess, request.timeoutMs, options.endsWithParent === true ? null : 'kill');
  const listeners: Array<(message: unknown) => void> = [];
  subprocess.on('message', (message: unknown) => {
    for (const listener of listeners) listener(message);
  });
  const exited = subprocess.then(
    (result) => toOutcome(result, supervision),
    (error: RawResult) => toOutcome(error, supervision),
  );
  return {
    // Node's own send: execa's sendMessage adds a promise and bookkeeping to every message,
    // and a tool host or the spawner exchanges several per case-trial.
    send: (message) =>
      new Promise<void>((resolve, reject) => {
        subprocess.send(message as never, (error: Error | null) => (error ? reject(error) : resolve()));
      }),
    onMessage: (listener) => {
      listeners.push(listener);
    },
    exited,
    kill: () => {
      if (subprocess.pid !== undefined) killGroup(subprocess.pid);
    },
  };
}

/** A long-lived child that reads text on its stdin and writes text on its stdout (a protocol of its own). */
export interface PipeProcess {
  /** Writes to the child's stdin; false when it is gone (its exit says why). */
  write(text: string): boolean;
  onText(listener: (text: string) => void): void;
  /** Ends its stdin: a child that ends itself at the end of its input does so. */
  endInput(): void;
  readonly exited: Promise<ProcessOutcome>;
  /** Stops the process and everything it started. */
  kill(): void;
}

/**
 * Starts a long-lived child that talks over its stdin and stdout: Node's own spawn and streams,
 * without Node's IPC channel and without execa, whose handling of each chunk of output (async
 * iteration, transforms, bookkeeping) costs more than the chunk (a spawner sends one or two
 * per case-trial). The kill rules are supervise()'s, by hand: its own process group, the group
 * killed once it exits, and at agentdevel's exit unless `endsWithParent`: then the child ends
 * itself, and what it started, when its stdin closes, which also happens when agentdevel dies.
 */
export function startPipeProcess(request: ProcessRequest, options: { readonly endsWithParent?: boolean } = {}): PipeProcess {
  const child: ChildProcess = spawn(request.command, [...request.args], { cwd: request.cwd, env: { ...request.env }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const pid = child.pid;
  const untrack = pid !== undefined && options.endsWithParent !== true ? trackChild(pid) : () => undefined;
  let stderr = '';
  const MAX_STDERR = 256 * 1024;
  // Heard before anything else: a start that fails (no such program, no file descriptor left:
  // then there are no pipes either) emits it on the next tick, and unheard it would end agentdevel.
  const exited = new Promise<ProcessOutcome>((resolve) => {
    let spawnError: string | null = null;
    child.once('error', (error) => {
      // Not started at all: no exit follows.
      if (child.pid === undefined) resolve({ exitCode: null, signal: null, stdout: '', stderr, timedOut: false, spawnError: error.message });
      spawnError = error.message;
    });
    let grace: NodeJS.Timeout | undefined;
    child.once('exit', () => {
      // Whatever the child started dies with it, and a process that left the group (setsid) and
      // still holds the pipes cannot hold them past the grace.
      if (pid !== undefined) killGroup(pid);
      grace = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, OUTPUT_GRACE_MS);
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(grace);
      untrack();
      resolve({ exitCode, signal, stdout: '', stderr, timedOut: false, spawnError: pid === undefined ? spawnError : null });
    });
  });
  const { stdin, stdout, stderr: errors } = child;
  if (errors) {
    errors.setEncoding('utf8');
    errors.on('data', (chunk: string) => {
      // The tail says why it died: keep the last part.
      stderr = (stderr + chunk).slice(-MAX_STDERR);
    });
  }
  // A child gone before reading all its input: its exit says so, the write error adds nothing.
  stdin?.on('error', () => undefined);
  stdout?.on('error', () => undefined);
  stdout?.setEncoding('utf8');
  return {
    write: (text) => {
      if (!stdin || stdin.destroyed || stdin.writableEnded) return false;
      stdin.write(text);
      return true;
    },
    onText: (listener) => {
      stdout?.on('data', listener);
    },
    endInput: () => {
      stdin?.end();
    },
    exited,
    kill: () => {
      if (pid !== undefined) killGroup(pid);
    },
  };
}
