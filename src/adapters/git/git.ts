// The one module that imports simple-git (house rule 6). Plumbing that needs standard input
// (mktag, update-ref --stdin) or the exit code (absent versus failed) goes through the process
// runner, via git-process.ts, so every git call agentdevel makes is in src/adapters/git/.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit, type SimpleGit, type SimpleGitOptions } from 'simple-git';
import { AgentdevelError } from '../../domain/errors.ts';
import { atExit } from '../process/exit-hooks.ts';
import { transferRefs } from './transfer.ts';
import {
  comparablePath,
  execGit,
  GIT_TIMEOUT_MS,
  gitEnvironment,
  gitFailure,
  parseWorktrees,
  pathExists,
  probeOutcome,
  type Probe,
  type WorktreeEntry,
} from './git-process.ts';
import { documentTree, graftedTree, type Plumbing } from './tree-writes.ts';
import { commitDatesRequest, parseCatFileBatch, parseChangedPathsOfCommits, parseCommitDates, parseLsTree, parseNameStatus, parseRefDetails, parseRefs, parseTreeListings, REF_FORMAT, treeListingRequest, type ChangedPath, type RefDetail } from './batch-reads.ts';
import type { RefUpdate } from '../../domain/ports/refs.ts';
import type { Repository } from '../../domain/ports/repository.ts';
import { folderFingerprint } from './fingerprint.ts';

export type { ChangedPath, RefDetail, WorktreeEntry };

/** Used only when the repository has no identity configured (fresh CI machines). */
const FALLBACK_IDENTITY = ['user.name=agentdevel', 'user.email=agentdevel@localhost'];

/**
 * Git commands that never record who did something: they run without the identity, and a
 * command that runs only these (`log`, `show`, `report`) never looks the identity up.
 */
const READS = new Set(['cat-file', 'config', 'diff', 'diff-tree', 'for-each-ref', 'log', 'ls-files', 'ls-tree', 'merge-base', 'remote', 'rev-list', 'rev-parse', 'status', 'symbolic-ref']);

export type { RefUpdate };

export class GitRepo implements Repository {
  /** Exit hooks of the worktrees this process added and has not removed yet, by folder. */
  private readonly exitCleanups = new Map<string, () => void>();

  /** `-c` settings of who commits (none when the repository has an identity), looked up at the first write. */
  private identity: readonly string[] = [];
  private identityLookup: Promise<readonly string[]> | null = null;
  private readonly readGit: SimpleGit;
  private writeGit: SimpleGit | null = null;

  private constructor(
    readonly root: string,
    /** The repository's common git folder (shared by its worktrees), absolute. */
    readonly commonDir: string,
  ) {
    this.readGit = simpleGit(gitOptions(root));
  }

  static async open(dir: string): Promise<GitRepo> {
    // One git process answers both: the top of the work tree, and the common git folder.
    const top = await execGit(['rev-parse', '--show-toplevel', '--git-common-dir'], dir, []);
    if (top.exitCode !== 0) {
      if (top.spawnError) throw gitFailure('rev-parse', new Error(top.spawnError));
      throw new AgentdevelError('NOT_A_REPOSITORY', `${dir} is not inside a git repository`, { cause: new Error(top.stderr.trim()) });
    }
    const [root = '', common = '.git'] = top.stdout.trim().split('\n');
    // --git-common-dir is relative to the folder git ran in.
    return new GitRepo(root, path.resolve(dir, common));
  }

  /** The identity settings a writing command needs: looked up once, by the first one. */
  private async identityFor(args: readonly string[]): Promise<readonly string[]> {
    if (READS.has(args[0] ?? '')) return [];
    this.identityLookup ??= execGit(['config', '--get', 'user.email'], this.root, []).then((outcome) => {
      const email = probeOutcome(['config', '--get', 'user.email'], outcome);
      this.identity = email.found && email.stdout.trim() ? [] : FALLBACK_IDENTITY;
      return this.identity;
    });
    return this.identityLookup;
  }

  /** Runs git where exit 1 is an answer (absent, no), and anything else but 0 is a failure. */
  private async probe(args: string[], dir = this.root): Promise<Probe> {
    return probeOutcome(args, await execGit(args, dir, await this.identityFor(args)));
  }

  private async raw(args: string[], action = args[0] ?? 'command', dir?: string): Promise<string> {
    try {
      const identity = await this.identityFor(args);
      if (dir) return await simpleGit(gitOptions(dir, identity)).raw(args);
      if (identity.length === 0) return await this.readGit.raw(args);
      this.writeGit ??= simpleGit(gitOptions(this.root, identity));
      return await this.writeGit.raw(args);
    } catch (error) {
      throw gitFailure(action, error);
    }
  }

  private readonly plumber: Plumbing = (args, input) => this.plumbing(args, input);

  /** Runs a git plumbing command that reads standard input. */
  private async plumbing(args: string[], input: string): Promise<string> {
    const outcome = await execGit(args, this.root, await this.identityFor(args), input);
    if (outcome.exitCode !== 0) throw gitFailure(args[0] ?? 'plumbing', new Error(outcome.stderr || outcome.spawnError || (outcome.timedOut ? 'timed out' : 'failed')));
    return outcome.stdout;
  }

  /** The branch checked out in the main worktree, or null when HEAD is detached. */
  async currentBranch(): Promise<string | null> {
    const name = await this.probe(['symbolic-ref', '--quiet', '--short', 'HEAD']);
    return name.found ? name.stdout.trim() || null : null;
  }

  async isShallow(): Promise<boolean> {
    return (await this.raw(['rev-parse', '--is-shallow-repository'], 'rev-parse')).trim() === 'true';
  }

  /** The value of `rev-parse --verify --quiet REV`, or null when REV names nothing. */
  private async revParse(rev: string): Promise<string | null> {
    const sha = await this.probe(['rev-parse', '--verify', '--quiet', rev]);
    return sha.found ? sha.stdout.trim() || null : null;
  }

  /** The commit a ref names, or null when it names none. A broken repository throws. */
  async resolve(ref: string): Promise<string | null> {
    return this.revParse(`${ref}^{commit}`);
  }

  async refValue(ref: string): Promise<string | null> {
    return this.revParse(ref);
  }

  /** The tree id of a folder at a commit (a content hash of the folder), or null if absent. */
  async treeId(commit: string, folder: string): Promise<string | null> {
    return this.revParse(`${commit}:${folder}`);
  }

  /** A file's content at a commit, or null when the commit or the file is absent (one git process). */
  async readFileAt(commit: string, file: string): Promise<string | null> {
    return (await this.readTexts([`${commit}:${file}`]))[0] ?? null;
  }

  async objectExists(sha: string): Promise<boolean> {
    return (await this.probe(['cat-file', '-e', sha])).found;
  }

  /** The files under `folder` at a commit, with their blob ids (none when the folder is absent). */
  async filesUnder(commit: string, folder: string): Promise<Array<{ path: string; blob: string }>> {
    return parseLsTree(await this.raw(['ls-tree', '-r', '-z', '--full-tree', commit, '--', folder], 'ls-tree')).map(({ path: file, blob }) => ({ path: file, blob }));
  }

  /** The symbolic links under `folder` at a commit, with their targets (git stores a link as a blob of its target). */
  async symlinks(commit: string, folder: string): Promise<Array<{ path: string; target: string }>> {
    const links = parseLsTree(await this.raw(['ls-tree', '-r', '-z', '--full-tree', commit, '--', folder], 'ls-tree')).filter((entry) => entry.mode === '120000');
    const targets = await this.readTexts(links.map((link) => link.blob));
    return links.map((link, i) => ({ path: link.path, target: targets[i] ?? '' }));
  }

  /** Paths with uncommitted changes (tracked or untracked, ignored files excluded). */
  async uncommittedPaths(dir = this.root): Promise<string[]> {
    const out = await this.raw(['status', '--porcelain', '--untracked-files=all'], 'status', dir);
    return out
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.slice(3));
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
    await this.identityFor(args);
    this.exitCleanups.get(dir)?.();
    this.exitCleanups.set(dir, atExit(() => this.cleanupSync(dir, branch)));
    // Synchronously: an interrupt is handled once git has finished (or given up), never while a
    // half-made worktree is being written, which the cleanup at exit could not remove (git would
    // go on writing into it after agentdevel is gone).
    const result = spawnSync('git', [...this.identity.flatMap((c) => ['-c', c]), ...args], { cwd: this.root, env: gitEnvironment(), encoding: 'utf8', timeout: GIT_TIMEOUT_MS });
    if (result.status !== 0) throw gitFailure('worktree add', new Error((result.stderr ?? '').trim() || result.error?.message || 'no exit status'));
  }

  /** The linked worktrees of the repository (not the main one), as git records them. */
  async worktrees(): Promise<WorktreeEntry[]> {
    return parseWorktrees(await this.raw(['worktree', 'list', '--porcelain'], 'worktree list')).slice(1);
  }

  /**
   * Removes a linked worktree, locked or not, with its files; a worktree that is already gone
   * is fine. Entries whose folder was deleted behind git's back are pruned.
   */
  async removeWorktree(dir: string): Promise<void> {
    this.exitCleanups.get(dir)?.();
    this.exitCleanups.delete(dir);
    const wanted = await comparablePath(dir);
    for (const entry of await this.worktrees()) {
      if ((await comparablePath(entry.path)) !== wanted) continue;
      if (entry.locked) await this.raw(['worktree', 'unlock', entry.path], 'worktree unlock');
      // Twice --force: also when it has changes, or a lock appeared meanwhile.
      if (await pathExists(entry.path)) await this.raw(['worktree', 'remove', '--force', '--force', entry.path], 'worktree remove');
    }
    await this.raw(['worktree', 'prune'], 'worktree prune');
  }

  /** Removes every linked worktree under `folder` (agentdevel's own), locked ones included, and only those. */
  async removeWorktreesUnder(folder: string): Promise<void> {
    const root = await comparablePath(folder);
    for (const entry of await this.worktrees()) {
      if (!(await comparablePath(entry.path)).startsWith(`${root}${path.sep}`)) continue;
      if (entry.locked) await this.raw(['worktree', 'unlock', entry.path], 'worktree unlock');
      if (await pathExists(entry.path)) await this.raw(['worktree', 'remove', '--force', '--force', entry.path], 'worktree remove');
    }
    await this.raw(['worktree', 'prune'], 'worktree prune');
  }

  /** Deletes a local branch; one that does not exist is fine. */
  async deleteBranch(name: string): Promise<void> {
    if ((await this.refValue(`refs/heads/${name}`)) === null) return;
    await this.raw(['branch', '-D', name], 'branch -D');
  }

  /**
   * The same cleanup, synchronously, for exit hooks (an interrupt): removes the worktree at
   * `dir` and deletes `branch`. Failures are reported by the caller; the next command's
   * leftover sweep finishes the job.
   */
  cleanupSync(dir: string, branch: string | null): void {
    const run = (args: string[]) => {
      const result = spawnSync('git', [...this.identity.flatMap((c) => ['-c', c]), ...args], { cwd: this.root, env: gitEnvironment(), encoding: 'utf8', timeout: 30_000 });
      if (result.status !== 0) throw new Error(`git ${args.slice(0, 2).join(' ')} failed: ${(result.stderr ?? '').trim() || result.error?.message || 'no exit status'}`);
    };
    if (existsSync(dir)) run(['worktree', 'remove', '--force', '--force', dir]);
    run(['worktree', 'prune']);
    if (branch && spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: this.root, env: gitEnvironment(), timeout: 30_000 }).status === 0) run(['branch', '-D', branch]);
  }

  async folderFingerprint(dir: string, folder: string): Promise<string> {
    return folderFingerprint(dir, await trackedFiles(dir, folder));
  }

  /** Stages everything in a worktree and commits it; returns the new commit. */
  async commitAll(dir: string, message: string): Promise<string> {
    await this.raw(['add', '--all'], 'add', dir);
    await this.raw(['commit', '--quiet', '--allow-empty', '-m', message], 'commit', dir);
    return (await this.raw(['rev-parse', 'HEAD'], 'rev-parse', dir)).trim();
  }

  /**
   * Commits exactly these paths of a worktree (added, changed or deleted) and nothing else, so
   * files a run left in the worktree can never slip into a release.
   */
  async commitPaths(dir: string, paths: readonly string[], message: string): Promise<string> {
    if (paths.length > 0) await this.raw(['add', '--all', '--', ...paths], 'add', dir);
    await this.raw(['commit', '--quiet', '--allow-empty', '-m', message, '--', ...paths], 'commit', dir);
    return (await this.raw(['rev-parse', 'HEAD'], 'rev-parse', dir)).trim();
  }

  async changedPaths(from: string, to: string): Promise<ChangedPath[]> {
    return parseNameStatus(await this.raw(['diff', '--name-status', '--no-renames', from, to], 'diff'));
  }

  /**
   * What each commit changed against its parent, for many commits in one git process (`log`
   * reads every RC's: one process each would be most of its time). A merge lists its first
   * parent's changes first.
   */
  async changedPathsOfCommits(commits: readonly string[]): Promise<Map<string, ChangedPath[]>> {
    if (commits.length === 0) return new Map();
    return parseChangedPathsOfCommits(await this.plumbing(['diff-tree', '--stdin', '-m', '-r', '--name-status', '--no-renames'], `${commits.join('\n')}\n`), commits);
  }

  /**
   * The text of several files at commits, in one git process (`cat-file --batch`); null for a
   * file absent at its commit. For UTF-8 text only (the sizes git gives are in bytes).
   */
  async readTextFilesAt(files: ReadonlyArray<{ readonly commit: string; readonly path: string }>): Promise<Array<string | null>> {
    return this.readTexts(files.map((f) => `${f.commit}:${f.path}`));
  }

  /** The text of several blobs, named by id or as "<commit>:<path>", in one git process; null for a name that names no blob. */
  async readTexts(names: readonly string[]): Promise<Array<string | null>> {
    if (names.length === 0) return [];
    for (const name of names) if (/[\n\r]/.test(name)) throw gitFailure('cat-file', new Error(`a path with a line break: ${JSON.stringify(name)}`));
    const out = Buffer.from(await this.plumbing(['cat-file', '--batch'], names.map((name) => `${name}\n`).join('')), 'utf8');
    return parseCatFileBatch(out, names.length);
  }

  /**
   * Refs matching any of `patterns` (a full name, or a prefix ending in "/"), each with the
   * commit it names, that commit's tree, parents and date: one git process for them all.
   */
  async refDetails(patterns: readonly string[]): Promise<RefDetail[]> {
    if (patterns.length === 0) return [];
    return parseRefDetails(await this.raw(['for-each-ref', `--format=${REF_FORMAT}`, ...patterns], 'for-each-ref'));
  }

  /** The files under `folder` in each of several trees, with their blob ids, in one git process. */
  async filesUnderTrees(trees: readonly string[], folder: string): Promise<Map<string, Array<{ path: string; blob: string }>>> {
    const distinct = [...new Set(trees)];
    if (distinct.length === 0) return new Map();
    const request = treeListingRequest(distinct, folder);
    return parseTreeListings(await this.plumbing(request.args, request.input), distinct);
  }

  /** The committer dates of several commits (strict ISO 8601), in one git process; absent commits are left out. */
  async commitDates(commits: readonly string[]): Promise<Map<string, string>> {
    const distinct = [...new Set(commits)];
    if (distinct.length === 0) return new Map();
    return parseCommitDates(await this.raw(commitDatesRequest(distinct), 'log'));
  }

  /** The patch from one commit to another, limited to `paths` (plain text, no colour). */
  async diff(from: string, to: string, paths: readonly string[]): Promise<string> {
    return this.raw(['diff', '--no-color', '--no-ext-diff', '--no-renames', from, to, '--', ...paths], 'diff');
  }

  /** The best common ancestor of two commits, or null when they share none. */
  async mergeBase(a: string, b: string): Promise<string | null> {
    const base = await this.probe(['merge-base', a, b]);
    return base.found ? base.stdout.trim() || null : null;
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return (await this.probe(['merge-base', '--is-ancestor', ancestor, descendant])).found;
  }

  /** Refs under a prefix with the objects they point at and those objects' kinds (commit, tag, tree, blob), sorted by name. */
  async refs(prefix: string): Promise<Array<{ ref: string; sha: string; type: string }>> {
    return parseRefs(await this.raw(['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)', prefix], 'for-each-ref'));
  }

  /** The full message of a commit (subject and body), or null when REV names none. */
  async commitMessage(rev: string): Promise<string | null> {
    const found = await this.probe(['log', '-1', '--format=%B', `${rev}^{commit}`, '--']);
    return found.found ? found.stdout : null;
  }

  /** The committer date of a commit (ISO 8601), or null when REV names none. */
  async commitDate(rev: string): Promise<string | null> {
    const found = await this.probe(['log', '-1', '--format=%cI', `${rev}^{commit}`, '--']);
    return found.found ? found.stdout.trim() || null : null;
  }

  /** Who this repository commits as ("Name <email>"), for records of who approved a release. */
  async committer(): Promise<string> {
    await this.identityFor(['var']);
    const ident = (await this.raw([...this.identity.flatMap((c) => ['-c', c]), 'var', 'GIT_COMMITTER_IDENT'], 'var')).trim();
    return ident.replace(/\s+\d+\s+[+-]\d{4}$/, '');
  }

  /** Creates an annotated tag object (no ref yet), so the tag ref can move with the line atomically. */
  async createTagObject(name: string, target: string, message: string): Promise<string> {
    await this.identityFor(['var']);
    const ident = (await this.raw([...this.identity.flatMap((c) => ['-c', c]), 'var', 'GIT_COMMITTER_IDENT'], 'var')).trim();
    const body = `object ${target}\ntype commit\ntag ${name}\ntagger ${ident}\n\n${message.trimEnd()}\n`;
    return (await this.plumbing(['mktag'], body)).trim();
  }

  /**
   * Writes a commit that holds just these files (at the top of its tree), on top of `parent` (two
   * parents: a merge of two clones' chains), without touching any worktree or index: a document
   * recorded in git.
   */
  async documentCommit(parent: string | readonly string[], files: ReadonlyArray<{ name: string; content: string }>, message: string): Promise<string> {
    const tree = await documentTree(this.plumber, files);
    const parents = (typeof parent === 'string' ? [parent] : parent).flatMap((p) => ['-p', p]);
    return (await this.plumbing(['commit-tree', tree, ...parents, '-F', '-'], message)).trim();
  }

  /**
   * A commit on no branch: `onto`'s tree with `folder` as `from` has it (removed where `from` has
   * none), on top of `parent`. Written as objects only; nothing moves.
   */
  async graftCommit(input: { readonly onto: string; readonly folder: string; readonly from: string; readonly parent: string; readonly message: string }): Promise<string> {
    const tree = await graftedTree(this.plumber, await this.treeOf(input.onto), input.folder.split('/'), await this.treeId(input.from, input.folder));
    return (await this.plumbing(['commit-tree', tree, '-p', input.parent, '-F', '-'], input.message)).trim();
  }

  /** The names of the configured remotes. */
  async remotes(): Promise<string[]> {
    return (await this.raw(['remote'], 'remote')).split('\n').filter((name) => name.trim() !== '');
  }

  /** Fetches refs matching `refspec` from a remote (no tags), within `timeoutMs`. Returns why it failed (git's words), or null. */
  async fetchRefs(remote: string, refspec: string, timeoutMs: number): Promise<string | null> {
    return transferRefs(this.root, 'fetch', remote, ['--no-tags', refspec], timeoutMs);
  }

  /** Fetches or pushes refspecs to a remote (see transfer.ts). Returns why it failed (git's words), or null. */
  async transferRefs(verb: 'fetch' | 'push', remote: string, refspecs: readonly string[], timeoutMs: number): Promise<string | null> {
    return transferRefs(this.root, verb, remote, refspecs, timeoutMs);
  }

  /** Moves several refs in one transaction: all of them move, or none does. */
  async updateRefs(updates: readonly RefUpdate[]): Promise<void> {
    const lines = ['start'];
    for (const u of updates) {
      if (u.newValue === null) lines.push(u.oldValue === null ? `delete ${u.ref}` : `delete ${u.ref} ${u.oldValue}`);
      else lines.push(u.oldValue === null ? `create ${u.ref} ${u.newValue}` : `update ${u.ref} ${u.newValue} ${u.oldValue}`);
    }
    lines.push('prepare', 'commit', '');
    await this.plumbing(['update-ref', '--stdin'], lines.join('\n'));
  }

  /** Deletes a ref; one that does not exist is fine. */
  async deleteRef(ref: string): Promise<void> {
    if ((await this.refValue(ref)) === null) return;
    await this.raw(['update-ref', '-d', ref], 'update-ref -d');
  }

  /** The tree the index of the main worktree holds now (written as an object, as `git write-tree` does). */
  async indexTree(): Promise<string> {
    return (await this.raw(['write-tree'], 'write-tree')).trim();
  }

  /** The parents of a commit, first parent first (none for a root commit). */
  async parents(commit: string): Promise<string[]> {
    const out = await this.raw(['rev-list', '--parents', '-n', '1', commit], 'rev-list');
    return out.trim().split(/\s+/).slice(1);
  }

  async treeOf(commit: string): Promise<string> {
    return (await this.raw(['rev-parse', `${commit}^{tree}`], 'rev-parse')).trim();
  }

  /**
   * Moves the main worktree's index and files from one commit to another, as a fast-forward
   * does: local changes to files the move does not touch are kept; a conflict changes nothing.
   */
  async moveCheckout(from: string, to: string): Promise<void> {
    await this.raw(['read-tree', '-m', '-u', from, to], 'read-tree');
  }

  /** Why moving the checkout from one commit to another would fail (git's words), or null when it would not. */
  async checkoutMoveConflict(from: string, to: string): Promise<string | null> {
    const outcome = await execGit(['read-tree', '-m', '-u', '--dry-run', from, to], this.root, await this.identityFor(['read-tree']));
    if (outcome.exitCode === 0) return null;
    if (outcome.exitCode === 128 && /not uptodate|would be overwritten|Cannot merge/i.test(outcome.stderr)) {
      return outcome.stderr.trim().split('\n').slice(0, 3).join('; ');
    }
    throw gitFailure('read-tree', new Error(outcome.stderr.trim() || outcome.spawnError || `exit ${outcome.exitCode}`));
  }

  /** Refreshes the index's stat data, so files whose times changed but whose content did not count as unchanged. */
  async refreshIndex(): Promise<void> {
    // Exit 1 lists files that really changed: an answer, not a failure.
    await this.probe(['update-index', '-q', '--refresh']);
  }

}

function gitOptions(baseDir: string, config: readonly string[] = []): Partial<SimpleGitOptions> {
  return { baseDir, config: [...config], timeout: { block: GIT_TIMEOUT_MS } };
}

export async function initRepository(dir: string, branch: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  try {
    await simpleGit(gitOptions(dir)).raw(['init', '--quiet', `--initial-branch=${branch}`]);
  } catch (error) {
    throw gitFailure('init', error);
  }
}

/** Files git would track under `folder` of the worktree at `dir` (committed or not, ignored excluded). */
async function trackedFiles(dir: string, folder: string): Promise<string[]> {
  try {
    const out = await simpleGit(gitOptions(dir)).raw(['ls-files', '--cached', '--others', '--exclude-standard', '--', folder]);
    return [...new Set(out.split('\n').filter((l) => l.trim() !== ''))].sort();
  } catch (error) {
    throw gitFailure('ls-files', error);
  }
}
