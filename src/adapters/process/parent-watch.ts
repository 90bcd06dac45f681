// A long-running command started as a shell job (`npx agentdevel worker … &`) runs under a chain
// of wrappers: npm exec, then `sh -c`, then node. Ending the job signals the first of them; npm
// passes it on to the shell, which ends without passing it on to node. Node is then an orphan
// that nobody will stop, retrying a Redis that is gone. So the worker watches its parent, and
// stops the way SIGTERM stops it when the parent is gone.
import { bootId, processState, stillRunning, type ProcessIdentity } from './liveness.ts';

/** How often the parent is looked at: about a second's delay is nothing for a worker that stops. */
const WATCH_EVERY_MS = 1_000;

/**
 * Calls `onGone` once when the process that started this one has ended (reparented to an init
 * or a subreaper). Started by process 1 itself (a container's entry point, systemd), there is
 * nothing to watch. Returns the function that stops watching.
 */
export function whenParentEnds(onGone: () => void, everyMs = WATCH_EVERY_MS): () => void {
  const parent: ProcessIdentity = { pid: process.ppid, startTime: processState(process.ppid)?.startTime ?? null, boot: bootId() };
  if (parent.pid <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (stillRunning(parent)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  // The watch alone never keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
