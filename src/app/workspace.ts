// Opening a workspace with the real adapters: git (simple-git and plumbing), the SQLite store,
// the lock file, and the task and blueprint readers. The pipeline sees them only as the ports of domain/ports.
import { readBlueprintBrief } from '../adapters/blueprint/brief.ts';
import { readBlueprintFiles, readManifest } from '../adapters/blueprint/load.ts';
import { blueprintLoadProblem } from '../adapters/blueprint/load-check.ts';
import { GitRepo, initRepository } from '../adapters/git/git.ts';
import { clearStaleGitLocks } from '../adapters/git/stale-locks.ts';
import { acquireLock } from '../adapters/process/workspace-lock.ts';
import { Store } from '../adapters/store/store.ts';
import { loadSplit, loadTask } from '../adapters/task/load.ts';
import { readTaskBrief } from '../adapters/task/task-brief.ts';
import { blueprintRoot } from '../domain/blueprint-paths.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { RepositoryHost } from '../domain/ports/repository.ts';
import type { WorkspaceFiles } from '../domain/ports/workspace-files.ts';
import { assembleStoreWorkspace, type StoreWorkspace } from '../pipeline/workspace/store-workspace.ts';
import { assembleWorkspace, type OpenOptions, type Workspace, type WorkspaceAdapters } from '../pipeline/workspace/workspace.ts';

export const gitRepositories: RepositoryHost = {
  open: (dir) => GitRepo.open(dir),
  init: initRepository,
  clearStaleLocks: async (root, commonDir) => {
    await clearStaleGitLocks(root, commonDir);
  },
};

export const workspaceFiles: WorkspaceFiles = {
  tasks: { loadTask, loadSplit, readBrief: readTaskBrief },
  blueprints: {
    readManifest: (dir, name) => readManifest(dir, blueprintRoot(dir, name)),
    readFiles: readBlueprintFiles,
    readBrief: readBlueprintBrief,
    loadProblem: blueprintLoadProblem,
  },
};

export const workspaceAdapters: WorkspaceAdapters = {
  repositories: gitRepositories,
  openStore: (root, clock) => Store.open(root, clock),
  acquireLock,
  files: workspaceFiles,
};

/** Opens the workspace at `dir` (the top of its git repository): its config, store and, for writers, its lock. */
export function openWorkspace(dir: string, options: OpenOptions): Promise<Workspace> {
  return assembleWorkspace(dir, options, workspaceAdapters);
}

/** Just the store of a folder (import, compare): no repository needed. */
export function openStoreWorkspace(dir: string, clock: Clock, lockFor: string | null): Promise<StoreWorkspace> {
  return assembleStoreWorkspace(dir, clock, lockFor, workspaceAdapters);
}
