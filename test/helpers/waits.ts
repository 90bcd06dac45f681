// Bounded waits for tests that watch another process: every wait ends, and a bound that runs
// out is a failure that names what was awaited, never a measurement.
import type { ChildProcess } from 'node:child_process';

/** Polls `check` every `everyMs` until it holds or `ms` have passed; whether it holds at the end. */
export async function waitFor(check: () => boolean, ms: number, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return true;
}

/** Waits until `check` holds; after `ms` it throws, naming `what` it waited for. */
export async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  if (!(await waitFor(check, ms))) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** Resolves when `child` has exited, or after `ms` (then it is killed): every wait has a bound. */
export function stopped(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
