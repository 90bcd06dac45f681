import { access, rm } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE, loadConfig } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';
import type { Clock } from '../../domain/ports/clock.ts';
import { noCheckpoint, type Checkpoint } from '../../domain/ports/checkpoint.ts';
import type { Reporter } from '../../domain/ports/reporter.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { OpenRecordStore, RecordStore } from '../../domain/ports/record-store.ts';
import type { Repository, RepositoryHost } from '../../domain/ports/repository.ts';
import type { AcquireLock, WorkspaceLock } from '../../domain/ports/workspace-lock.ts';
import type { WorkspaceFiles } from '../../domain/ports/workspace-files.ts';
import { STATE_DIR } from '../../domain/state-dir.ts';
import { recoverPromotion } from '../../stages/release/journal.ts';
import { rebuildStoreFromGit } from './rebuild-store.ts';
import { labelAliasesAt } from './label-aliases.ts';

/** An opened workspace: the repository, its config, its store, and (for writers) its lock. */
export interface Workspace {
  readonly root: string;
  readonly stateDir: string;
  readonly tracesRoot: string;
  readonly repo: Repository;
  readonly config: Config;
  readonly store: RecordStore;
  /** Reads task and blueprint folders, of this workspace or of any checkout of it. */
  readonly files: WorkspaceFiles;
  /** Marks the moments of a promotion a test may stop the command at (a no-op outside such tests). */
  readonly checkpoint: Checkpoint;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Commands that change the store or the line take the workspace lock. */
  readonly lock: { readonly command: string; readonly waitMs: number } | null;
  readonly clock: Clock;
  /**
   * Whether the command reads the store (default yes): such a command opens it at once and first
   * brings it up to date with git (a fresh clone rebuilds it). One that does not (`log`) never
   * opens it, unless something asks for it anyway, and then as it is.
   */
  readonly readsStore?: boolean;
  /** The test hook's checkpoint (default: none). */
  readonly checkpoint?: Checkpoint;
  /** Where the store's rebuild reports the documents in git it did not read (default: nowhere). */
  readonly reporter?: Reporter;
  /** Told the config as soon as it is read, before the lock, the recovery and the store's rebuild (which mostly wait on git). */
  readonly onConfig?: (config: Config) => void;
}

/** What opening a workspace needs from outside: git, the store, the lock and the file readers (app/ wires the real ones). */
export interface WorkspaceAdapters {
  readonly repositories: RepositoryHost;
  readonly openStore: OpenRecordStore;
  readonly acquireLock: AcquireLock;
  readonly files: WorkspaceFiles;
}

/** Opens the workspace at `dir` through these adapters (app/workspace.ts's openWorkspace gives the real ones). */
export async function assembleWorkspace(dir: string, options: OpenOptions, adapters: WorkspaceAdapters): Promise<Workspace> {
  const repo = await adapters.repositories.open(dir);
  const root = repo.root;
  if (path.resolve(dir) !== root) {
    await access(path.join(dir, CONFIG_FILE)).then(
      () => {
        throw new AgentdevelError('CONFIG_MISSING', `${CONFIG_FILE} must be at the top of the repository (${root}), not in ${dir}`);
      },
      () => undefined,
    );
  }
  const config = await loadConfig(root);
  options.onConfig?.(config);
  const stateDir = path.join(root, STATE_DIR);
  // traces/README.md (what agentdevel writes there) stays addable: only the traces are excluded.
  await repo.excludeFromStatus([`/${STATE_DIR}/`, '/traces/*', '!/traces/README.md']);
  let lock: WorkspaceLock | null = null;
  // Writers and readers of the store open it at once; `log` never does.
  let store: RecordStore | null = options.lock || options.readsStore !== false ? adapters.openStore(root, options.clock) : null;
  try {
    if (options.lock) {
      lock = await adapters.acquireLock(stateDir, options.lock.command, options.lock.waitMs, () => options.clock.now());
      // Git's own locks a killed command left (its git killed mid-write) would fail every write.
      await adapters.repositories.clearStaleLocks(root, repo.commonDir);
      // A promotion interrupted by a crash is finished before anything else looks at the line,
      // and checkouts a killed command left behind are removed (the lock says none is in use).
      await recoverPromotion(repo, stateDir);
      await removeLeftovers(repo, stateDir);
    }
    if (store) {
      // The store reads the decisions in git it has not read yet (all of them in a fresh clone).
      const rebuilt = await rebuildStoreFromGit({ repo, store, config, tracesRoot: path.join(root, 'traces') });
      for (const message of rebuilt.warnings) options.reporter?.emit({ type: 'warning', message });
      // The curated vocabulary: merged labels read as one everywhere the store is read (the loop
      // reads each iteration through the aliases in effect then, see loop/label-merges.ts).
      store = store.throughAliases(await labelAliasesAt(repo, config, 'all'));
    }
  } catch (error) {
    store?.close();
    await lock?.release();
    throw error;
  }
  return {
    root,
    stateDir,
    tracesRoot: path.join(root, 'traces'),
    repo,
    config,
    files: adapters.files,
    checkpoint: options.checkpoint ?? noCheckpoint,
    get store(): RecordStore {
      store ??= adapters.openStore(root, options.clock);
      return store;
    },
    close: async () => {
      store?.close();
      store = null;
      await lock?.release();
    },
  };
}

/**
 * Removes what a killed command left behind: agentdevel's own worktrees (locked ones included,
 * as `git worktree add` leaves them when killed mid-way) and only those, their folders, build
 * folders and RC branches.
 */
async function removeLeftovers(repo: Repository, stateDir: string): Promise<void> {
  const worktrees = path.join(stateDir, 'worktrees');
  await repo.removeWorktreesUnder(worktrees);
  await rm(worktrees, { recursive: true, force: true });
  await rm(path.join(stateDir, 'build'), { recursive: true, force: true });
  for (const { ref } of await repo.refs('refs/heads/agentdevel/rc/')) await repo.deleteBranch(ref.slice('refs/heads/'.length));
}

export function lineRef(config: Config): string {
  return `refs/heads/${config.line.branch}`;
}

export async function lineTip(workspace: Workspace): Promise<string> {
  const tip = await workspace.repo.resolve(lineRef(workspace.config));
  if (!tip) {
    throw new AgentdevelError('CONFIG_INVALID', `line.branch: the branch "${workspace.config.line.branch}" does not exist in ${workspace.root}`, {
      hint: 'Commit the workspace on that branch, or set line.branch in agentdevel.config.json to your main branch.',
      location: { file: path.join(workspace.root, CONFIG_FILE), key: 'line.branch' },
    });
  }
  return tip;
}

/**
 * Refuses a command that writes the line's next release in a shallow clone, before anything is
 * written: the release's CHANGELOG and index are rebuilt from every release tag, and a shallow
 * clone has only the tags on the commits it holds, so the new commit would drop the earlier
 * releases' entries (and iteration numbers read from the line would restart).
 */
export async function refuseShallowHistory(workspace: Workspace, command: string): Promise<void> {
  if (!(await workspace.repo.isShallow())) return;
  throw new AgentdevelError('HISTORY_SHALLOW', `${command}: ${workspace.root} is a shallow clone (its history and the release tags on it are cut off), and a release written here would drop what the line already holds; nothing was written`);
}

export async function refuseDirtyTree(workspace: Workspace): Promise<void> {
  const dirty = await workspace.repo.uncommittedPaths();
  if (dirty.length > 0) {
    const shown = dirty.slice(0, 5).join(', ');
    throw new AgentdevelError('DIRTY_TREE', `the working tree has uncommitted changes (${shown}${dirty.length > 5 ? `, and ${dirty.length - 5} more` : ''})`);
  }
}
