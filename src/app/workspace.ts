// Opening a workspace with the real adapters: git (as processes), the SQLite store,
// the lock file, and the task and blueprint readers. The pipeline sees them only as the ports of domain/ports.
import { GitRepo, initRepository } from '../adapters/git/git.ts';
import { clearStaleGitLocks } from '../adapters/git/stale-locks.ts';
import { acquireLock } from '../adapters/process/workspace-lock.ts';
import { Store } from '../adapters/store/store.ts';
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

// The readers load at their first use: a command that reads no task or blueprint (`log`) never loads them.
const taskLoader = () => import('../adapters/task/load.ts');
const blueprintLoader = () => import('../adapters/blueprint/load.ts');

export const workspaceFiles: WorkspaceFiles = {
  tasks: {
    loadTask: async (dir, name) => (await taskLoader()).loadTask(dir, name),
    loadSplit: async (task, split) => (await taskLoader()).loadSplit(task, split),
    readBrief: async (dir, name, buildDir) => (await import('../adapters/task/task-brief.ts')).readTaskBrief(dir, name, buildDir),
  },
  blueprints: {
    readManifest: async (dir, name) => (await blueprintLoader()).readManifest(dir, blueprintRoot(dir, name)),
    readFiles: async (dir, name) => (await blueprintLoader()).readBlueprintFiles(dir, name),
    readBrief: async (dir, name) => (await import('../adapters/blueprint/brief.ts')).readBlueprintBrief(dir, name),
    loadProblem: async (dir, name, limits, buildDir) => (await import('../adapters/blueprint/load-check.ts')).blueprintLoadProblem(dir, name, limits, buildDir),
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
