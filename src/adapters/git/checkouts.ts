// Checkouts through the repository's runner (git-runner.ts): the main worktree's status, linked
// worktrees (removed at this process's exit if still there), and commits made from them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Checkouts, WorktreeEntry } from '../../domain/ports/repository.ts';
import { atExit } from '../process/exit-hooks.ts';
import { comparablePath, gitEnvironment, gitFailure, parseWorktrees, pathExists } from './git-process.ts';
import type { GitRunner } from './git-runner.ts';
import { parseStatusPaths } from './batch-reads.ts';
import { folderFingerprint } from './fingerprint.ts';

export class CheckoutWorks implements Checkouts {
  readonly commonDir: string;
  /** Exit hooks of the worktrees this process added and has not removed yet, by folder. */
  private readonly exitCleanups = new Map<string, () => void>();

  constructor(private readonly git: GitRunner) {
    this.commonDir = git.commonDir;
  }

  /** Paths with uncommitted changes (tracked or untracked, ignored files excluded). */
  async uncommittedPaths(dir = this.git.root): Promise<string[]> {
    return parseStatusPaths(await this.git.raw(['status', '--porcelain', '-z', '--untracked-files=all'], 'status', dir));
  }

  /** Keeps agentdevel's own state out of `git status` even when .gitignore does not mention it. */
  async excludeFromStatus(patterns: readonly string[]): Promise<void> {
    const file = path.join(this.commonDir, 'info', 'exclude');
    const current = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      return '';
    });
    const missing = patterns.filter((p) => !current.split('\n').includes(p));
    if (missing.length === 0) return;
    await mkdir(path.dirname(file), { recursive: true });
    await appendFile(file, `${current.endsWith('\n') || current === '' ? '' : '\n'}# agentdevel state\n${missing.join('\n')}\n`);
  }

  /**
   * Adds a linked worktree (on a new branch, or detached). Until it is removed, an exit of this
   * process (an interrupt included) removes it, and its branch, on the way out.
   */
  async addWorktree(dir: string, commit: string, branch: string | null): Promise<void> {
    const args = branch ? ['worktree', 'add', '-B', branch, dir, commit] : ['worktree', 'add', '--detach', dir, commit];
    // Looked up before the exit hook exists: the hook runs synchronously and cannot look it up.
    await this.git.identityFor(args);
    this.exitCleanups.get(dir)?.();
    this.exitCleanups.set(dir, atExit(() => this.cleanupSync(dir, branch)));
    // Synchronously: an interrupt is handled once git has finished (or given up), never while a
    // half-made worktree is being written, which the cleanup at exit could not remove (git would
    // go on writing into it after agentdevel is gone).
    const result = this.git.runSync(args);
    if (result.status !== 0) throw gitFailure('worktree add', new Error((result.stderr ?? '').trim() || result.error?.message || 'no exit status'));
  }

  /** The linked worktrees of the repository (not the main one), as git records them. */
  async worktrees(): Promise<WorktreeEntry[]> {
    return parseWorktrees(await this.git.raw(['worktree', 'list', '--porcelain'], 'worktree list')).slice(1);
  }

  /**
   * Removes a linked worktree, locked or not, with its files; a worktree that is already gone
   * is fine. Entries whose folder was deleted behind git's back are pruned.
   */
  async removeWorktree(dir: string): Promise<void> {
    this.exitCleanups.get(dir)?.();
    this.exitCleanups.delete(dir);
    const wanted = await comparablePath(dir);
    await this.removeWorktreesWhere((place) => place === wanted);
  }

  /** Removes every linked worktree under `folder` (agentdevel's own), locked ones included, and only those. */
  async removeWorktreesUnder(folder: string): Promise<void> {
    const root = await comparablePath(folder);
    await this.removeWorktreesWhere((place) => place.startsWith(`${root}${path.sep}`));
  }

  private async removeWorktreesWhere(chosen: (place: string) => boolean): Promise<void> {
    for (const entry of await this.worktrees()) {
      if (!chosen(await comparablePath(entry.path))) continue;
      if (entry.locked) await this.git.raw(['worktree', 'unlock', entry.path], 'worktree unlock');
      // Twice --force: also when it has changes, or a lock appeared meanwhile.
      if (await pathExists(entry.path)) await this.git.raw(['worktree', 'remove', '--force', '--force', entry.path], 'worktree remove');
    }
    await this.git.raw(['worktree', 'prune'], 'worktree prune');
  }

  /** Deletes a local branch; one that does not exist is fine. */
  async deleteBranch(name: string): Promise<void> {
    if ((await this.git.revParse(`refs/heads/${name}`)) === null) return;
    await this.git.raw(['branch', '-D', name], 'branch -D');
  }

  /**
   * The same cleanup, synchronously, for exit hooks (an interrupt): removes the worktree at
   * `dir` and deletes `branch`. Failures are reported by the caller; the next command's
   * leftover sweep finishes the job.
   */
  cleanupSync(dir: string, branch: string | null): void {
    const run = (args: string[]) => {
      const result = this.git.runSync(args, 30_000);
      if (result.status !== 0) throw new Error(`git ${args.slice(0, 2).join(' ')} failed: ${(result.stderr ?? '').trim() || result.error?.message || 'no exit status'}`);
    };
    if (existsSync(dir)) run(['worktree', 'remove', '--force', '--force', dir]);
    run(['worktree', 'prune']);
    if (branch && spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: this.git.root, env: gitEnvironment(), timeout: 30_000 }).status === 0) run(['branch', '-D', branch]);
  }

  async folderFingerprint(dir: string, folder: string): Promise<string> {
    return (await this.folderFingerprints(dir, [folder]))[0] as string;
  }

  async folderFingerprints(dir: string, folders: readonly string[]): Promise<string[]> {
    // Files git would track under the folders (committed or not, ignored excluded): one git process
    // for all. Names end with NUL, unquoted: a name git would quote (non-ASCII, a quote, a tab) is
    // the file's own, so a change to that file changes the fingerprint.
    const out = await this.git.raw(['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...folders], 'ls-files', dir);
    const files = [...new Set(out.split('\0').filter((name) => name !== ''))].sort();
    return Promise.all(folders.map((folder) => folderFingerprint(dir, files.filter((file) => file === folder || file.startsWith(`${folder}/`)))));
  }

  /** Stages everything in a worktree and commits it; returns the new commit. */
  async commitAll(dir: string, message: string): Promise<string> {
    await this.git.raw(['add', '--all'], 'add', dir);
    return this.commit(dir, ['commit', '--quiet', '--allow-empty', '-m', message]);
  }

  /**
   * Commits exactly these paths of a worktree (added, changed or deleted) and nothing else, so
   * files a run left in the worktree can never slip into a release.
   */
  async commitPaths(dir: string, paths: readonly string[], message: string): Promise<string> {
    if (paths.length > 0) await this.git.raw(['add', '--all', '--', ...paths], 'add', dir);
    return this.commit(dir, ['commit', '--quiet', '--allow-empty', '-m', message, '--', ...paths]);
  }

  private async commit(dir: string, args: string[]): Promise<string> {
    await this.git.raw(args, 'commit', dir);
    return (await this.git.raw(['rev-parse', 'HEAD'], 'rev-parse', dir)).trim();
  }
}
