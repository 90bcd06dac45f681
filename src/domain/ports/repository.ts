// What the pipeline needs of the git repository, in narrow ports: reading refs, reading history,
// writing documents and tags, working in checkouts, and talking to remotes. A function asks for
// the narrowest it uses; a Workspace hands out the whole `Repository`. adapters/git/ implements
// each part in its own file; git.ts (GitRepo) composes them over one runner; app/ opens it.
import type { ChangedPath } from '../changed-path.ts';
import type { PromotionRefs, RefUpdate } from './refs.ts';

export type { ChangedPath, RefUpdate };

/** A ref with the commit it names, that commit's tree, parents and date (one git process for many). */
export interface RefDetail {
  readonly ref: string;
  /** The object the ref names itself (the tag object of an annotated tag), and its kind. */
  readonly sha: string;
  readonly type: string;
  /** The commit it names (through an annotated tag), or null when it names no commit. */
  readonly commit: string | null;
  /** That commit's tree, its parents, and its committer date (strict ISO 8601, as `git log --format=%cI`). */
  readonly tree: string | null;
  readonly parents: readonly string[];
  readonly date: string | null;
}

/** A linked worktree as git records it. */
export interface WorktreeEntry {
  readonly path: string;
  readonly locked: boolean;
}

export interface FileAt {
  path: string;
  blob: string;
}

/** Refs and how commits relate. */
export interface RefReader {
  readonly root: string;
  /** The commit a ref names, or null when it names none. A broken repository throws. */
  resolve(ref: string): Promise<string | null>;
  refValue(ref: string): Promise<string | null>;
  objectExists(sha: string): Promise<boolean>;
  /** The branch checked out in the main worktree, or null when HEAD is detached. */
  currentBranch(): Promise<string | null>;
  /** Refs under a prefix with the objects they point at and those objects' kinds, sorted by name. */
  refs(prefix: string): Promise<Array<{ ref: string; sha: string; type: string }>>;
  /** Refs matching any of `patterns` (a full name, or a prefix ending in "/"), with their commits' details. */
  refDetails(patterns: readonly string[]): Promise<RefDetail[]>;
  /** The best common ancestor of two commits, or null when they share none. */
  mergeBase(a: string, b: string): Promise<string | null>;
  isAncestor(ancestor: string, descendant: string): Promise<boolean>;
  /** True in a shallow clone (`git clone --depth N`): commits, and the tags on them, past its cut are missing. */
  isShallow(): Promise<boolean>;
}

/** Files, trees and commits as recorded. */
export interface HistoryReader {
  /** The tree id of a folder at a commit (a content hash of the folder), or null if absent. */
  treeId(commit: string, folder: string): Promise<string | null>;
  treeOf(commit: string): Promise<string>;
  /** A file's content at a commit, or null when the commit or the file is absent. */
  readFileAt(commit: string, file: string): Promise<string | null>;
  /** The text of several files at commits, in one git process; null for a file absent at its commit. */
  readTextFilesAt(files: ReadonlyArray<{ readonly commit: string; readonly path: string }>): Promise<Array<string | null>>;
  /** The text of several blobs, named by id or as "<commit>:<path>"; null for a name that names no blob. */
  readTexts(names: readonly string[]): Promise<Array<string | null>>;
  /** The files under `folder` at a commit, with their blob ids (none when the folder is absent). */
  filesUnder(commit: string, folder: string): Promise<FileAt[]>;
  /** The files under `folder` in each of several trees, in one git process. */
  filesUnderTrees(trees: readonly string[], folder: string): Promise<Map<string, FileAt[]>>;
  /** The symbolic links under `folder` at a commit, with their targets. */
  symlinks(commit: string, folder: string): Promise<Array<{ path: string; target: string }>>;
  changedPaths(from: string, to: string): Promise<ChangedPath[]>;
  /** What each commit changed against its parent, for many commits in one git process. */
  changedPathsOfCommits(commits: readonly string[]): Promise<Map<string, ChangedPath[]>>;
  /** The patch from one commit to another, limited to `paths` (plain text, no colour). */
  diff(from: string, to: string, paths: readonly string[]): Promise<string>;
  /** The full message of a commit, or null when REV names none. */
  commitMessage(rev: string): Promise<string | null>;
  /** The committer date of a commit (ISO 8601), or null when REV names none. */
  commitDate(rev: string): Promise<string | null>;
  /** The committer dates of several commits; absent commits are left out. */
  commitDates(commits: readonly string[]): Promise<Map<string, string>>;
  /** The parents of a commit, first parent first. */
  parents(commit: string): Promise<string[]>;
}

/** Documents and tags written to git as objects, and refs moved. */
export interface HistoryWriter {
  /** Who this repository commits as ("Name <email>"). */
  committer(): Promise<string>;
  /** Creates an annotated tag object (no ref yet). */
  createTagObject(name: string, target: string, message: string): Promise<string>;
  /** A commit that holds just these files on top of `parent` (two parents: a merge), touching no worktree. */
  documentCommit(parent: string | readonly string[], files: ReadonlyArray<{ name: string; content: string }>, message: string): Promise<string>;
  /** A commit on no branch: `onto`'s tree with `folder` as `from` has it, on top of `parent`. */
  graftCommit(input: { readonly onto: string; readonly folder: string; readonly from: string; readonly parent: string; readonly message: string }): Promise<string>;
  /** Moves several refs in one transaction: all of them move, or none does. */
  updateRefs(updates: readonly RefUpdate[]): Promise<void>;
  /** Deletes a ref; one that does not exist is fine. */
  deleteRef(ref: string): Promise<void>;
}

/** Checkouts: the main worktree, linked worktrees, and commits made from them. */
export interface Checkouts {
  /** The repository's common git folder (shared by its worktrees), absolute. */
  readonly commonDir: string;
  /** Paths with uncommitted changes (tracked or untracked, ignored files excluded). */
  uncommittedPaths(dir?: string): Promise<string[]>;
  /** Keeps agentdevel's own state out of `git status`. */
  excludeFromStatus(patterns: readonly string[]): Promise<void>;
  /** Adds a linked worktree (on a new branch, or detached), removed on this process's exit if still there. */
  addWorktree(dir: string, commit: string, branch: string | null): Promise<void>;
  worktrees(): Promise<WorktreeEntry[]>;
  removeWorktree(dir: string): Promise<void>;
  /** Removes every linked worktree under `folder`, locked ones included, and only those. */
  removeWorktreesUnder(folder: string): Promise<void>;
  deleteBranch(name: string): Promise<void>;
  /** The same cleanup, synchronously, for exit hooks. */
  cleanupSync(dir: string, branch: string | null): void;
  /** Stages everything in a worktree and commits it; returns the new commit. */
  commitAll(dir: string, message: string): Promise<string>;
  /** Commits exactly these paths of a worktree and nothing else. */
  commitPaths(dir: string, paths: readonly string[], message: string): Promise<string>;
  /**
   * A content hash of a folder of the checkout at `dir` as git would track it (committed or not,
   * ignored files left out): equal content gives an equal fingerprint in any checkout.
   */
  folderFingerprint(dir: string, folder: string): Promise<string>;
  /** The same for several folders at once (one listing of the checkout), in their order. */
  folderFingerprints(dir: string, folders: readonly string[]): Promise<string[]>;
}

/** Fetching and pushing. */
export interface Remotes {
  remotes(): Promise<string[]>;
  /** Fetches refs matching `refspec` from a remote (no tags). Returns why it failed (git's words), or null. */
  fetchRefs(remote: string, refspec: string, timeoutMs: number): Promise<string | null>;
  /** Fetches or pushes refspecs. Returns why it failed (git's words), or null. */
  transferRefs(verb: 'fetch' | 'push', remote: string, refspecs: readonly string[], timeoutMs: number): Promise<string | null>;
}

/** The whole repository, as a Workspace hands it out. */
export interface Repository extends RefReader, HistoryReader, HistoryWriter, Checkouts, Remotes, PromotionRefs {
  readonly root: string;
}

/** Opening and creating repositories (what `init` and the example need). */
export interface RepositoryHost {
  open(dir: string): Promise<Repository>;
  /** Creates a repository at `dir` with `branch` as its first branch. */
  init(dir: string, branch: string): Promise<void>;
  /** Releases git's own locks a killed command left behind (its git killed mid-write). */
  clearStaleLocks(root: string, commonDir: string): Promise<void>;
}
