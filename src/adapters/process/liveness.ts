// Whether a process named by a pid is still the process that wrote it down. A pid that answers a
// signal is no proof: a killed process stays in the process table as a zombie until its parent
// reaps it, and the kernel hands its pid to a new process later. So the holder of a lock records
// its start time (in clock ticks since boot, /proc/<pid>/stat field 22) and its boot; a reader
// holds the pid against both, and treats a zombie as gone. Where there is no /proc (macOS), the
// signal is all there is.
import { readFileSync } from 'node:fs';

/** A process as /proc shows it: its state letter and start time; null when it does not exist. */
export interface ProcessState {
  /** R, S, D, T, Z (zombie), X (dead), ... */
  readonly state: string;
  /** Clock ticks since boot at which it started. */
  readonly startTime: string;
}

const readText = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** Whether this system shows processes under /proc (Linux). */
export function hasProcfs(): boolean {
  return readText('/proc/self/stat') !== null;
}

/**
 * The state and start time of a process, read from /proc/<pid>/stat; null when it does not exist
 * (or there is no /proc). The second field is the command name in parentheses, which may itself
 * hold spaces and parentheses, so the fields are counted from the last ")".
 */
export function processState(pid: number): ProcessState | null {
  const text = readText(`/proc/${pid}/stat`);
  if (text === null) return null;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19];
  return state && startTime ? { state, startTime } : null;
}

/** This boot of the machine (a pid and a start time mean nothing across reboots); null without /proc. */
export function bootId(): string | null {
  return readText('/proc/sys/kernel/random/boot_id')?.trim() ?? null;
}

/** What a process writes down about itself so that another can later tell whether it still runs. */
export interface ProcessIdentity {
  readonly pid: number;
  /** Null where there is no /proc. */
  readonly startTime: string | null;
  readonly boot: string | null;
}

export function selfIdentity(): ProcessIdentity {
  return { pid: process.pid, startTime: processState(process.pid)?.startTime ?? null, boot: bootId() };
}

function answersSignal(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process that wrote `identity` still runs. Gone when: it was recorded on another
 * boot; /proc shows no such pid, or a zombie (killed, not yet reaped); the pid now belongs to a
 * process that started at another time (reused). Without /proc (or for an identity recorded
 * without a start time), a pid that answers a signal, and is not a zombie, counts as alive.
 */
export function stillRunning(identity: ProcessIdentity): boolean {
  if (!hasProcfs()) return answersSignal(identity.pid);
  const boot = bootId();
  if (identity.boot !== null && boot !== null && identity.boot !== boot) return false;
  const now = processState(identity.pid);
  if (now === null) return false;
  if (now.state === 'Z' || now.state === 'X' || now.state === 'x') return false;
  if (identity.startTime !== null && now.startTime !== identity.startTime) return false;
  return true;
}
