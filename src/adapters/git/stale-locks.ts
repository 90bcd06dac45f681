// Git's own lock files, left behind when a git process is killed mid-write (kill -9 of the
// process group, a power cut): `index.lock`, `HEAD.lock`, `packed-refs.lock`, `refs/…/x.lock`.
// Git refuses every later write while one exists ("Unable to create '….lock': File exists"),
// which turned a killed `demo` into a `GIT_FAILED` on the next `iterate`. Called with the
// workspace lock held (no other agentdevel command runs here): a git process still working in
// the repository (an orphan of the killed command finishing its write, or the user's own git),
// in its main worktree, in any linked worktree wherever it lives, or in its git directory, is
// waited for; once none is left, its locks are stale and removed.
import { readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { systemClock } from '../../domain/ports/clock.ts';

/** A path as the kernel reports a process's cwd: symbolic links resolved (as given when it does not exist). */
function canonical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/**
 * Every folder a git process working on this repository may stand in: the main worktree, the
 * common directory, and each linked worktree, wherever it lives (read from
 * <common>/worktrees/<name>/gitdir, so no git process is needed to list them).
 */
export function repositoryPlaces(root: string, commonDir: string): string[] {
  const places = new Set([canonical(root), canonical(commonDir)]);
  let linked: string[] = [];
  try {
    linked = readdirSync(path.join(commonDir, 'worktrees'));
  } catch {
    // No linked worktrees.
  }
  for (const name of linked) {
    try {
      const gitFile = readFileSync(path.join(commonDir, 'worktrees', name, 'gitdir'), 'utf8').trim();
      places.add(canonical(path.dirname(gitFile)));
    } catch {
      // A worktree entry without its gitdir file: git prunes it; nothing stands there.
    }
  }
  return [...places];
}

/**
 * The git processes (git and its helpers, git-*) working in any of `places`: their working
 * directory is inside one of them, or their GIT_DIR, GIT_COMMON_DIR or GIT_WORK_TREE names one
 * (read from /proc; none without it). Paths are compared after resolving symbolic links.
 */
export function gitProcessesIn(places: string | readonly string[]): number[] {
  const folders = (typeof places === 'string' ? [places] : places).map(canonical);
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const inside = (dir: string) => folders.some((folder) => dir === folder || dir.startsWith(`${folder}${path.sep}`));
  return pids.flatMap((pid) => {
    try {
      if (!/^git(-|$)/.test(readFileSync(`/proc/${pid}/comm`, 'utf8').trim())) return [];
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (inside(cwd)) return [Number(pid)];
      const named = readFileSync(`/proc/${pid}/environ`, 'latin1')
        .split('\0')
        .flatMap((entry) => {
          const match = /^GIT_(?:DIR|COMMON_DIR|WORK_TREE)=(.+)$/.exec(entry);
          return match?.[1] ? [canonical(path.resolve(cwd, match[1]))] : [];
        });
      return named.some(inside) ? [Number(pid)] : [];
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
  const places = repositoryPlaces(root, commonDir);
  while (gitProcessesIn(places).length > 0) {
    if (systemClock.now().getTime() >= deadline) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const left = gitLockFiles(commonDir);
  for (const file of left) rmSync(file, { force: true });
  return left;
}
