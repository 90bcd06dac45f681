// Files, trees and commits as recorded, read through the repository's runner (git-runner.ts);
// reads of many in a fixed number of git processes (batch-reads.ts).
import type { ChangedPath } from '../../domain/changed-path.ts';
import type { FileAt, HistoryReader } from '../../domain/ports/repository.ts';
import { commitDatesRequest, parseCatFileBatch, parseChangedPathsOfCommits, parseCommitDates, parseLsTree, parseNameStatus, parseTreeListings, treeListingRequest } from './batch-reads.ts';
import { gitFailure } from './git-process.ts';
import type { GitRunner } from './git-runner.ts';

export class HistoryReads implements HistoryReader {
  constructor(private readonly git: GitRunner) {}

  /** The tree id of a folder at a commit (a content hash of the folder), or null if absent. */
  async treeId(commit: string, folder: string): Promise<string | null> {
    return this.git.revParse(`${commit}:${folder}`);
  }

  async treeOf(commit: string): Promise<string> {
    return (await this.git.raw(['rev-parse', `${commit}^{tree}`], 'rev-parse')).trim();
  }

  /** A file's content at a commit, or null when the commit or the file is absent (one git process). */
  async readFileAt(commit: string, file: string): Promise<string | null> {
    return (await this.readTexts([`${commit}:${file}`]))[0] ?? null;
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
    const out = Buffer.from(await this.git.plumbing(['cat-file', '--batch'], names.map((name) => `${name}\n`).join('')), 'utf8');
    return parseCatFileBatch(out, names.length);
  }

  /** The files under `folder` at a commit, with their blob ids (none when the folder is absent). */
  async filesUnder(commit: string, folder: string): Promise<FileAt[]> {
    return (await this.blobsUnder(commit, folder)).map(({ path: file, blob }) => ({ path: file, blob }));
  }

  /** The files under `folder` in each of several trees, with their blob ids, in one git process. */
  async filesUnderTrees(trees: readonly string[], folder: string): Promise<Map<string, FileAt[]>> {
    const distinct = [...new Set(trees)];
    if (distinct.length === 0) return new Map();
    const request = treeListingRequest(distinct, folder);
    return parseTreeListings(await this.git.plumbing(request.args, request.input), distinct);
  }

  /** The symbolic links under `folder` at a commit, with their targets (git stores a link as a blob of its target). */
  async symlinks(commit: string, folder: string): Promise<Array<{ path: string; target: string }>> {
    const links = (await this.blobsUnder(commit, folder)).filter((entry) => entry.mode === '120000');
    const targets = await this.readTexts(links.map((link) => link.blob));
    return links.map((link, i) => ({ path: link.path, target: targets[i] ?? '' }));
  }

  private async blobsUnder(commit: string, folder: string): Promise<Array<{ mode: string; path: string; blob: string }>> {
    return parseLsTree(await this.git.raw(['ls-tree', '-r', '-z', '--full-tree', commit, '--', folder], 'ls-tree'));
  }

  async changedPaths(from: string, to: string): Promise<ChangedPath[]> {
    return parseNameStatus(await this.git.raw(['diff', '--name-status', '--no-renames', '-z', from, to], 'diff'));
  }

  /**
   * What each commit changed against its parent, for many commits in one git process (`log`
   * reads every RC's: one process each would be most of its time). A merge lists its first
   * parent's changes first.
   */
  async changedPathsOfCommits(commits: readonly string[]): Promise<Map<string, ChangedPath[]>> {
    if (commits.length === 0) return new Map();
    return parseChangedPathsOfCommits(await this.git.plumbing(['diff-tree', '--stdin', '-m', '-r', '--name-status', '--no-renames', '-z'], `${commits.join('\n')}\n`), commits);
  }

  /** The patch from one commit to another, limited to `paths` (plain text, no colour). */
  async diff(from: string, to: string, paths: readonly string[]): Promise<string> {
    return this.git.raw(['diff', '--no-color', '--no-ext-diff', '--no-renames', from, to, '--', ...paths], 'diff');
  }

  /** The full message of a commit (subject and body), or null when REV names none. */
  async commitMessage(rev: string): Promise<string | null> {
    const found = await this.git.probe(['log', '-1', '--format=%B', `${rev}^{commit}`, '--']);
    return found.found ? found.stdout : null;
  }

  /** The committer date of a commit (ISO 8601), or null when REV names none. */
  async commitDate(rev: string): Promise<string | null> {
    const found = await this.git.probe(['log', '-1', '--format=%cI', `${rev}^{commit}`, '--']);
    return found.found ? found.stdout.trim() || null : null;
  }

  /** The committer dates of several commits (strict ISO 8601), in one git process; absent commits are left out. */
  async commitDates(commits: readonly string[]): Promise<Map<string, string>> {
    const distinct = [...new Set(commits)];
    if (distinct.length === 0) return new Map();
    return parseCommitDates(await this.git.raw(commitDatesRequest(distinct), 'log'));
  }

  /** The parents of a commit, first parent first (none for a root commit). */
  async parents(commit: string): Promise<string[]> {
    const out = await this.git.raw(['rev-list', '--parents', '-n', '1', commit], 'rev-list');
    return out.trim().split(/\s+/).slice(1);
  }
}
