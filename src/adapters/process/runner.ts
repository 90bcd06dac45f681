// The one module that imports execa (house rule 6). Every subprocess agentdevel starts (tool
// hosts, command agents, diagnosis scripts, custom scorers, git plumbing) goes through here, so
// the environment scrubbing and the kill rules live in one place:
// - each child leads its own process group (its own session), so a signal it sends to "its
//   group" never reaches agentdevel, and stopping it stops everything it started;
// - every wait has a bound: the time limit kills the whole group, and once the child itself
//   has exited its leftovers are killed and its output streams are closed after a short grace,
//   so a grandchild that keeps stdout open cannot hold the command;
// - children still running when agentdevel exits (an error, an interrupt) are killed.
import { execa, type ResultPromise } from 'execa';
import { randomBytes } from 'node:crypto';
import { CONTAINMENT_VARIABLE, killGroup, killMarked, trackChild } from './children.ts';

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
   * Untrusted code: its processes are marked in their environment, and once it has exited every
   * marked process still running is killed, also one that left the process group (setsid).
   */
  readonly contain?: boolean;
}

export interface ProcessOutcome {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Set when the process could not be started at all (missing executable, bad cwd). */
  readonly spawnError: string | null;
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
function supervise(subprocess: ResultPromise, timeoutMs: number | undefined, killAtExit = true): Supervision {
  const pid = subprocess.pid;
  let timedOut = false;
  if (pid === undefined) return { timedOut: () => false };
  const untrack = killAtExit ? trackChild(pid) : () => undefined;
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

/** Runs a process to completion. A non-zero exit is an outcome, not an exception. */
export async function runProcess(request: ProcessRequest): Promise<ProcessOutcome> {
  const marker = request.contain ? randomBytes(12).toString('hex') : null;
  const options = baseOptions(request);
  if (marker) options.env[CONTAINMENT_VARIABLE] = marker;
  const subprocess = execa(request.command, [...request.args], {
    ...options,
    input: request.input ?? '',
    maxBuffer: request.maxOutputBytes ?? 16 * 1024 * 1024,
  });
  const supervision = supervise(subprocess, request.timeoutMs);
  const result = await subprocess;
  if (marker) killMarked(marker);
  return toOutcome(result, supervision);
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
  const supervision = supervise(subprocess, request.timeoutMs, options.endsWithParent !== true);
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
 * Starts a long-lived child that talks over its stdin and stdout, without Node's IPC channel
 * and execa's bookkeeping of each IPC message (a spawner exchanges several per case-trial).
 * `endsWithParent` as for startIpcProcess: the child ends itself, and what it started, when its
 * stdin closes, which also happens when agentdevel dies.
 */
export function startPipeProcess(request: ProcessRequest, options: { readonly endsWithParent?: boolean } = {}): PipeProcess {
  const subprocess: ResultPromise = execa(request.command, [...request.args], {
    ...baseOptions(request),
    stdin: 'pipe',
    stdout: 'pipe',
    // Read as it comes, never kept for the result; stderr's tail says why the child died.
    buffer: { stdout: false, stderr: true },
    maxBuffer: { stderr: 256 * 1024 },
  });
  const supervision = supervise(subprocess, request.timeoutMs, options.endsWithParent !== true);
  const exited = subprocess.then(
    (result) => toOutcome(result, supervision),
    (error: RawResult) => toOutcome(error, supervision),
  );
  // A child gone before reading all its input: its exit says so, the write error adds nothing.
  subprocess.stdin?.on('error', () => undefined);
  subprocess.stdout?.setEncoding('utf8');
  return {
    write: (text) => {
      const stdin = subprocess.stdin;
      if (!stdin || stdin.destroyed || stdin.writableEnded) return false;
      stdin.write(text);
      return true;
    },
    onText: (listener) => {
      subprocess.stdout?.on('data', listener);
    },
    endInput: () => {
      subprocess.stdin?.end();
    },
    exited,
    kill: () => {
      if (subprocess.pid !== undefined) killGroup(subprocess.pid);
    },
  };
}
