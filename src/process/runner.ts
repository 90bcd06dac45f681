// The one module that imports execa (house rule 6). Every subprocess agentdevel starts (tool
// hosts, command agents, diagnosis scripts, custom scorers) goes through here, so the
// environment scrubbing and kill rules live in one place.
import { execa, type ResultPromise } from 'execa';

export interface ProcessRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** The complete environment of the child. Nothing is inherited from agentdevel's own. */
  readonly env: Readonly<Record<string, string>>;
  readonly input?: string;
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
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

function baseOptions(request: ProcessRequest) {
  return {
    cwd: request.cwd,
    env: { ...request.env },
    extendEnv: false,
    reject: false,
    timeout: request.timeoutMs,
    killSignal: 'SIGKILL' as const,
    stripFinalNewline: false,
  };
}

/** Runs a process to completion. A non-zero exit is an outcome, not an exception. */
export async function runProcess(request: ProcessRequest): Promise<ProcessOutcome> {
  const result = await execa(request.command, [...request.args], {
    ...baseOptions(request),
    input: request.input ?? '',
    maxBuffer: request.maxOutputBytes ?? 16 * 1024 * 1024,
  });
  return toOutcome(result);
}

/**
 * Runs a process and hands each stdout line to `onLine` as it arrives, so long outputs are
 * never held whole in memory.
 */
export async function runProcessLines(
  request: ProcessRequest,
  onLine: (line: string) => void | Promise<void>,
): Promise<ProcessOutcome> {
  const subprocess = execa(request.command, [...request.args], {
    ...baseOptions(request),
    input: request.input ?? '',
    buffer: { stdout: false, stderr: true },
    maxBuffer: { stderr: request.maxOutputBytes ?? 1024 * 1024 },
  });
  try {
    for await (const line of subprocess.iterable({ from: 'stdout' })) {
      await onLine(String(line));
    }
  } catch {
    // The process failed mid-stream; its outcome below says how.
  }
  return toOutcome(await subprocess);
}

interface RawResult {
  exitCode?: number;
  signal?: string;
  stdout?: unknown;
  stderr?: unknown;
  timedOut?: boolean;
  failed?: boolean;
  code?: string;
  originalMessage?: string;
  message?: string;
}

function toOutcome(result: RawResult): ProcessOutcome {
  const spawnFailed = result.failed === true && result.exitCode === undefined && !result.signal && !result.timedOut;
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
    timedOut: result.timedOut === true,
    spawnError: spawnFailed ? (result.originalMessage ?? result.message ?? 'could not start the process') : null,
  };
}

/** A long-lived child that exchanges JSON messages over Node's IPC channel. */
export interface IpcProcess {
  send(message: unknown): Promise<void>;
  onMessage(listener: (message: unknown) => void): void;
  /** Resolves when the process exits, with how it ended and its stderr tail. */
  readonly exited: Promise<ProcessOutcome>;
  kill(): void;
}

export function startIpcProcess(request: ProcessRequest): IpcProcess {
  const subprocess: ResultPromise = execa(request.command, [...request.args], {
    ...baseOptions(request),
    ipc: true,
    serialization: 'json',
    stdin: 'ignore',
    stdout: 'ignore',
    buffer: { stderr: true },
    maxBuffer: { stderr: 256 * 1024 },
  });
  const listeners: Array<(message: unknown) => void> = [];
  subprocess.on('message', (message: unknown) => {
    for (const listener of listeners) listener(message);
  });
  const exited = subprocess.then(toOutcome, (error: RawResult) => toOutcome(error));
  return {
    send: async (message) => {
      await subprocess.sendMessage(message as never);
    },
    onMessage: (listener) => {
      listeners.push(listener);
    },
    exited,
    kill: () => {
      subprocess.kill('SIGKILL');
    },
  };
}
