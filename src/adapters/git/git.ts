// The git repository of a workspace: one runner (git-runner.ts: where the repository is, who
// commits, how git is run) and over it one small adapter per narrow port of
// domain/ports/repository.ts (ref-reader.ts, history-reader.ts, history-writer.ts,
// checkouts.ts, remotes.ts) and the line's checkout that a promotion moves (line-checkout.ts).
// `GitRepo` opens the runner and hands each part its port's calls, so callers see one `Repository`.
import type { ChangedPath, FileAt, RefDetail, RefUpdate, Repository, WorktreeEntry } from '../../domain/ports/repository.ts';
import { GitRunner } from './git-runner.ts';
import { RefReads } from './ref-reader.ts';
import { HistoryReads } from './history-reader.ts';
import { HistoryWrites } from './history-writer.ts';
import { CheckoutWorks } from './checkouts.ts';
import { LineCheckout } from './line-checkout.ts';
import { RemoteTransfers } from './remotes.ts';

export { initRepository } from './git-runner.ts';
export type { ChangedPath, RefDetail, RefUpdate, WorktreeEntry };

export class GitRepo implements Repository {
  readonly root: string;
  /** The repository's common git folder (shared by its worktrees), absolute. */
  readonly commonDir: string;
  private readonly refReader: RefReads;
  private readonly historyReader: HistoryReads;
  private readonly historyWriter: HistoryWrites;
  private readonly checkouts: CheckoutWorks;
  private readonly lineCheckout: LineCheckout;
  private readonly remoteTransfers: RemoteTransfers;

  private constructor(git: GitRunner) {
    this.root = git.root;
    this.commonDir = git.commonDir;
    this.refReader = new RefReads(git);
    this.historyReader = new HistoryReads(git);
    this.historyWriter = new HistoryWrites(git, this.historyReader);
    this.checkouts = new CheckoutWorks(git);
    this.lineCheckout = new LineCheckout(git);
    this.remoteTransfers = new RemoteTransfers(git);
  }

  /** The repository `dir` is in; not being in one is a clear error (NOT_A_REPOSITORY). */
  static async open(dir: string): Promise<GitRepo> {
    return new GitRepo(await GitRunner.open(dir));
  }

  // Refs (ref-reader.ts).
  resolve(ref: string): Promise<string | null> {
    return this.refReader.resolve(ref);
  }
  refValue(ref: string): Promise<string | null> {
    return this.refReader.refValue(ref);
  }
  objectExists(sha: string): Promise<boolean> {
    return this.refReader.objectExists(sha);
  }
  currentBranch(): Promise<string | null> {
    return this.refReader.currentBranch();
  }
  refs(prefix: string): Promise<Array<{ ref: string; sha: string; type: string }>> {
    return this.refReader.refs(prefix);
  }
  refDetails(patterns: readonly string[]): Promise<RefDetail[]> {
    return this.refReader.refDetails(patterns);
  }
  mergeBase(a: string, b: string): Promise<string | null> {
    return this.refReader.mergeBase(a, b);
  }
  isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return this.refReader.isAncestor(ancestor, descendant);
  }
  isShallow(): Promise<boolean> {
    return this.refReader.isShallow();
  }

  // History (history-reader.ts).
  treeId(commit: string, folder: string): Promise<string | null> {
    return this.historyReader.treeId(commit, folder);
  }
  treeOf(commit: string): Promise<string> {
    return this.historyReader.treeOf(commit);
  }
  readFileAt(commit: string, file: string): Promise<string | null> {
    return this.historyReader.readFileAt(commit, file);
  }
  readTextFilesAt(files: ReadonlyArray<{ readonly commit: string; readonly path: string }>): Promise<Array<string | null>> {
    return this.historyReader.readTextFilesAt(files);
  }
  readTexts(names: readonly string[]): Promise<Array<string | null>> {
    return this.historyReader.readTexts(names);
  }
  filesUnder(commit: string, folder: string): Promise<FileAt[]> {
    return this.historyReader.filesUnder(commit, folder);
  }
  filesUnderTrees(trees: readonly string[], folder: string): Promise<Map<string, FileAt[]>> {
    return this.historyReader.filesUnderTrees(trees, folder);
  }
  symlinks(commit: string, folder: string): Promise<Array<{ path: string; target: string }>> {
    return this.historyReader.symlinks(commit, folder);
  }
  changedPaths(from: string, to: string): Promise<ChangedPath[]> {
    return this.historyReader.changedPaths(from, to);
  }
  changedPathsOfCommits(commits: readonly string[]): Promise<Map<string, ChangedPath[]>> {
    return this.historyReader.changedPathsOfCommits(commits);
  }
  diff(from: string, to: string, paths: readonly string[]): Promise<string> {
    return this.historyReader.diff(from, to, paths);
  }
  commitMessage(rev: string): Promise<string | null> {
    return this.historyReader.commitMessage(rev);
  }
  commitDate(rev: string): Promise<string | null> {
    return this.historyReader.commitDate(rev);
  }
  commitDates(commits: readonly string[]): Promise<Map<string, string>> {
    return this.historyReader.commitDates(commits);
  }
  parents(commit: string): Promise<string[]> {
    return this.historyReader.parents(commit);
  }

  // Writes (history-writer.ts).
  committer(): Promise<string> {
    return this.historyWriter.committer();
  }
  createTagObject(name: string, target: string, message: string): Promise<string> {
    return this.historyWriter.createTagObject(name, target, message);
  }
  documentCommit(parent: string | readonly string[], files: ReadonlyArray<{ name: string; content: string }>, message: string): Promise<string> {
    return this.historyWriter.documentCommit(parent, files, message);
  }
  graftCommit(input: { readonly onto: string; readonly folder: string; readonly from: string; readonly parent: string; readonly message: string }): Promise<string> {
    return this.historyWriter.graftCommit(input);
  }
  updateRefs(updates: readonly RefUpdate[]): Promise<void> {
    return this.historyWriter.updateRefs(updates);
  }
  deleteRef(ref: string): Promise<void> {
    return this.historyWriter.deleteRef(ref);
  }

  // Checkouts (checkouts.ts).
  uncommittedPaths(dir?: string): Promise<string[]> {
    return this.checkouts.uncommittedPaths(dir);
  }
  excludeFromStatus(patterns: readonly string[]): Promise<void> {
    return this.checkouts.excludeFromStatus(patterns);
  }
  addWorktree(dir: string, commit: string, branch: string | null): Promise<void> {
    return this.checkouts.addWorktree(dir, commit, branch);
  }
  worktrees(): Promise<WorktreeEntry[]> {
    return this.checkouts.worktrees();
  }
  removeWorktree(dir: string): Promise<void> {
    return this.checkouts.removeWorktree(dir);
  }
  removeWorktreesUnder(folder: string): Promise<void> {
    return this.checkouts.removeWorktreesUnder(folder);
  }
  deleteBranch(name: string): Promise<void> {
    return this.checkouts.deleteBranch(name);
  }
  cleanupSync(dir: string, branch: string | null): void {
    this.checkouts.cleanupSync(dir, branch);
  }
  commitAll(dir: string, message: string): Promise<string> {
    return this.checkouts.commitAll(dir, message);
  }
  commitPaths(dir: string, paths: readonly string[], message: string): Promise<string> {
    return this.checkouts.commitPaths(dir, paths, message);
  }
  folderFingerprint(dir: string, folder: string): Promise<string> {
    return this.checkouts.folderFingerprint(dir, folder);
  }
  folderFingerprints(dir: string, folders: readonly string[]): Promise<string[]> {
    return this.checkouts.folderFingerprints(dir, folders);
  }

  // The line's checkout, moved by a promotion (line-checkout.ts).
  indexTree(): Promise<string> {
    return this.lineCheckout.indexTree();
  }
  refreshIndex(): Promise<void> {
    return this.lineCheckout.refreshIndex();
  }
  checkoutMoveConflict(from: string, to: string): Promise<string | null> {
    return this.lineCheckout.checkoutMoveConflict(from, to);
  }
  moveCheckout(from: string, to: string): Promise<void> {
    return this.lineCheckout.moveCheckout(from, to);
  }

  // Remotes (remotes.ts).
  remotes(): Promise<string[]> {
    return this.remoteTransfers.remotes();
  }
  fetchRefs(remote: string, refspec: string, timeoutMs: number): Promise<string | null> {
    return this.remoteTransfers.fetchRefs(remote, refspec, timeoutMs);
  }
  transferRefs(verb: 'fetch' | 'push', remote: string, refspecs: readonly string[], timeoutMs: number): Promise<string | null> {
    return this.remoteTransfers.transferRefs(verb, remote, refspecs, timeoutMs);
  }
}
