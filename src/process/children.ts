// The children agentdevel has running, by process group. Each child leads its own group, so
// killing the group stops the child and everything it started. Whatever is still running when
// agentdevel exits (normally, on an error, or on SIGINT/SIGTERM through process.exit) is killed
// then: untrusted code never outlives the command that started it.
import { atExit } from './exit-hooks.ts';

const running = new Set<number>();
let hooked = false;

function killAll(): void {
  for (const group of running) killGroup(group);
  running.clear();
}

/** Sends SIGKILL to a child's whole process group; a group that is already gone is fine. */
export function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch (error) {
    // ESRCH: the group has no process left. EPERM: its last member is a zombie being reaped.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}

/** Tracks a started child (the leader of its own group); returns the call that forgets it. */
export function trackChild(group: number): () => void {
  if (!hooked) {
    hooked = true;
    atExit(killAll);
  }
  running.add(group);
  return () => {
    running.delete(group);
  };
}

/** How many children are running now (for tests and diagnostics). */
export function runningChildren(): number {
  return running.size;
}
