// Checkouts of a version of the line: a commit in a temporary worktree, or the working tree as
// it is. Runs, the gate, the loop and approval all read files from one; none of them needs the
// runner to get it, so it lives with the workspace rather than in pipeline/run.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Workspace } from './workspace.ts';

/** Where a version's files are read from. */
export interface VersionSource {
  /** The commit the files come from ("+dirty" when they are uncommitted working files). */
  readonly commit: string;
  /** A checkout of that commit: a worktree, or the workspace itself. */
  readonly dir: string;
}

/** The working tree as it is, committed or not (what the user sees is what runs). */
export async function workingTreeSource(workspace: Workspace): Promise<VersionSource> {
  const head = (await workspace.repo.resolve('HEAD')) ?? 'none';
  const dirty = (await workspace.repo.uncommittedPaths()).length > 0;
  return { commit: dirty ? `${head}+dirty` : head, dir: workspace.root };
}

/** Checks out a commit into a temporary worktree for the duration of `work`. */
export async function withCheckout<T>(workspace: Workspace, commit: string, work: (source: VersionSource) => Promise<T>): Promise<T> {
  const dir = path.join(workspace.stateDir, 'worktrees', `${commit.slice(0, 12)}-${randomBytes(3).toString('hex')}`);
  await workspace.repo.addWorktree(dir, commit, null);
  try {
    return await work({ commit, dir });
  } finally {
    await workspace.repo.removeWorktree(dir);
  }
}

/** A checkout made only if something asks for it, and removed by `close` if it was made. */
export function lazyCheckout(workspace: Workspace, commit: string): { source: () => Promise<VersionSource>; close: () => Promise<void> } {
  const dir = path.join(workspace.stateDir, 'worktrees', `${commit.slice(0, 12)}-${randomBytes(3).toString('hex')}`);
  let opening: Promise<VersionSource> | null = null;
  return {
    source: () => (opening ??= workspace.repo.addWorktree(dir, commit, null).then(() => ({ commit, dir }))),
    close: async () => {
      // Removing a worktree that failed half-way is what the cleanup of leftovers does too.
      if (opening) await workspace.repo.removeWorktree(dir);
    },
  };
}

