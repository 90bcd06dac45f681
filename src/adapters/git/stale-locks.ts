// Git's own lock files, left behind when a git process is killed mid-write (kill -9 of the
// process group, a power cut): `index.lock`, `HEAD.lock`, `packed-refs.lock`, `refs/…/x.lock`.
// Git refuses every later write while one exists ("Unable to create '….lock': File exists"),
// which turned a killed `demo` into a `GIT_FAILED` on the next `iterate`. Called with the
// workspace lock held (no other agentdevel command runs here): a git process still working in
// the repository (an orphan of the killed command finishing its write, or the user's own git)
// is waited for; once none is left, its locks are stale and removed.
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { systemClock } from '../../domain/ports/clock.ts';

/** The git processes whose working directory is inside `root` (read from /proc; none without it). */
export function gitProcessesIn(root: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const inside = (dir: string) => dir === root || dir.startsWith(`${root}${path.sep}`);
  return pids.flatMap((pid) => {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'git') return [];
      return inside(readlinkSync(`/proc/${pid}/cwd`)) ? [Number(pid)] : [];
    } catch {
      return []; // Gone meanwhile, or another user's.
    }
  });
}

/** The lock files git may leave in a repository's common directory and its worktrees' folders. */
export function gitLockFiles(commonDir: string): string[] {
  const found: string[] = [];
  const top = ['index.lock', 'HEAD.lock', 'packed-refs.lock', 'config.lock', 'shallow.lock'].map((name) => path.join(commonDir, name));
  const walk = (dir: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth > 0) walk(full, depth - 1);
      else if (entry.isFile() && entry.name.endsWith('.lock')) found.push(full);
    }
  };
  walk(path.join(commonDir, 'refs'), 16);
  walk(path.join(commonDir, 'worktrees'), 1);
  for (const file of top) {
    try {
      readFileSync(file);
      found.push(file);
    } catch {
      // Not there: nothing to clear.
    }
  }
  return found.sort();
}

/**
 * Removes the lock files git left in the repository once no git process works in it (waiting
 * at most `waitMs` for those that do). Returns the files removed; none when a git process still
 * runs there after the wait (its locks may be live).
 */
export async function clearStaleGitLocks(root: string, commonDir: string, waitMs = 10_000): Promise<string[]> {
  const locks = gitLockFiles(commonDir);
  if (locks.length === 0) return [];
  const deadline = systemClock.now().getTime() + waitMs;
  while (gitProcessesIn(root).length > 0) {
    if (systemClock.now().getTime() >= deadline) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const left = gitLockFiles(commonDir);
  for (const file of left) rmSync(file, { force: true });
  return left;
}
