// Opening a workspace with the real adapters: git (simple-git and plumbing), the SQLite store,
// and the lock file. The pipeline sees them only as the ports of domain/ports.
import { GitRepo, initRepository } from '../adapters/git/git.ts';
import { clearStaleGitLocks } from '../adapters/git/stale-locks.ts';
import { acquireLock } from '../adapters/process/workspace-lock.ts';
import { Store } from '../adapters/store/store.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { RepositoryHost } from '../domain/ports/repository.ts';
import { assembleStoreWorkspace, type StoreWorkspace } from '../pipeline/workspace/store-workspace.ts';
import { assembleWorkspace, type OpenOptions, type Workspace, type WorkspaceAdapters } from '../pipeline/workspace/workspace.ts';

export const gitRepositories: RepositoryHost = {
  open: (dir) => GitRepo.open(dir),
  init: initRepository,
  clearStaleLocks: async (root, commonDir) => {
    await clearStaleGitLocks(root, commonDir);
  },
};

export const workspaceAdapters: WorkspaceAdapters = {
  repositories: gitRepositories,
  openStore: (root, clock) => Store.open(root, clock),
  acquireLock,
};

/** Opens the workspace at `dir` (the top of its git repository): its config, store and, for writers, its lock. */
export function openWorkspace(dir: string, options: OpenOptions): Promise<Workspace> {
  return assembleWorkspace(dir, options, workspaceAdapters);
}

/** Just the store of a folder (import, compare): no repository needed. */
export function openStoreWorkspace(dir: string, clock: Clock, lockFor: string | null): Promise<StoreWorkspace> {
  return assembleStoreWorkspace(dir, clock, lockFor, workspaceAdapters);
}
