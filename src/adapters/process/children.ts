// The children agentdevel has running, by process group. Each child leads its own group, so
// killing the group stops the child and everything it started. Whatever is still running when
// agentdevel exits (normally, on an error, or on SIGINT/SIGTERM through process.exit) is killed
// then: untrusted code never outlives the command that started it.
import { readdirSync, readFileSync } from 'node:fs';
import { atExit } from './exit-hooks.ts';
import { stillRunning } from './liveness.ts';

/** How a child still running at exit is stopped: killed, or asked to end first (git, which then removes its lock files). */
export type AtExit = 'kill' | 'terminate';

const running = new Map<number, AtExit>();
let hooked = false;
/** How long children asked to end at exit are given before they are killed. */
const TERMINATE_GRACE_MS = 500;

function killAll(): void {
  const asked = [...running].filter(([, how]) => how === 'terminate').map(([group]) => group);
  for (const group of asked) signalGroup(group, 'SIGTERM');
  // A synchronous wait (this runs at exit), bounded: each is killed below anyway.
  const until = performance.now() + TERMINATE_GRACE_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (asked.some((pid) => stillRunning({ pid, startTime: null, boot: null })) && performance.now() < until) Atomics.wait(pause, 0, 0, 10);
  for (const group of running.keys()) killGroup(group);
  running.clear();
}

/** Sends SIGKILL to a child's whole process group; a group that is already gone is fine. */
export function killGroup(group: number): void {
  signalGroup(group, 'SIGKILL');
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch (error) {
    // ESRCH: the group has no process left. EPERM: its last member is a zombie being reaped.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}

/** Tracks a started child (the leader of its own group); returns the call that forgets it. */
export function trackChild(group: number, how: AtExit = 'kill'): () => void {
  if (!hooked) {
    hooked = true;
    atExit(killAll);
  }
  running.set(group, how);
  return () => {
    running.delete(group);
  };
}

/** How many children are running now (for tests and diagnostics). */
export function runningChildren(): number {
  return running.size;
}

/** The environment variable that marks every process an untrusted child started, wherever it went. */
export const CONTAINMENT_VARIABLE = 'AGENTDEVEL_CONTAINED';

/**
 * Kills every process that carries `marker` in its environment (read from /proc): what an
 * untrusted child started and moved out of its process group (setsid, a double fork) is still
 * its descendant by environment, and dies with it. Returns how many were killed; 0 without /proc.
 */
export function killMarked(marker: string): number {
  const needle = `${CONTAINMENT_VARIABLE}=${marker}`;
  let killed = 0;
  // Twice: a marked process may have forked while the first pass ran.
  for (let pass = 0; pass < 2; pass += 1) {
    let pids: string[];
    try {
      pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
    } catch {
      return killed;
    }
    for (const pid of pids) {
      let environ: string;
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
      } catch {
        continue; // Gone meanwhile, or another user's.
      }
      if (!environ.split('\0').includes(needle)) continue;
      try {
        process.kill(Number(pid), 'SIGKILL');
        killed += 1;
      } catch {
        // Already gone.
      }
    }
  }
  return killed;
}
