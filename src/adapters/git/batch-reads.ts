// Reads of many refs, folders and files in a fixed number of git processes. A read-only command
// (`log`, `show`, `report`) spends most of its start-up starting processes: one per release
// grows with the line. Each function here builds the arguments and input of one git process
// and parses its output; ref-reader.ts and history-reader.ts run it.

import type { ChangedPath } from '../../domain/changed-path.ts';
import type { RefDetail } from '../../domain/ports/repository.ts';

export type { ChangedPath, RefDetail };

const REF_FIELDS = ['refname', 'objectname', 'objecttype', 'tree', 'parent', 'committerdate:iso-strict'];
/** The fields of the ref and of the object a tag points at (`*`), NUL-separated (no ref name holds a NUL). */
export const REF_FORMAT = [...REF_FIELDS, ...REF_FIELDS.slice(1).map((field) => `*${field}`)].map((field) => `%(${field})`).join('%00');

export function parseRefDetails(out: string): RefDetail[] {
  const details: RefDetail[] = [];
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const [ref = '', sha = '', type = '', tree = '', parents = '', date = '', peeledSha = '', peeledType = '', peeledTree = '', peeledParents = '', peeledDate = ''] = line.split('\0');
    const own = type === 'commit';
    const peeled = type === 'tag' && peeledType === 'commit';
    details.push({
      ref,
      sha,
      type,
      commit: own ? sha : peeled ? peeledSha : null,
      tree: own ? tree || null : peeled ? peeledTree || null : null,
      parents: (own ? parents : peeled ? peeledParents : '').split(' ').filter((p) => p !== ''),
      date: own ? date || null : peeled ? peeledDate || null : null,
    });
  }
  return details;
}

/** The empty tree of the repository's hash (git knows it without storing it). */
function emptyTree(sample: string): string {
  return sample.length === 64 ? '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321' : '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
}

/**
 * `diff-tree --stdin` over (empty tree, tree) pairs lists every file of each tree under a
 * folder, with its blob, in one process (`ls-tree` takes one tree per process).
 */
export function treeListingRequest(trees: readonly string[], folder: string): { args: string[]; input: string } {
  const empty = emptyTree(trees[0] ?? '');
  return {
    args: ['diff-tree', '--stdin', '-r', '-z', '--no-renames', '--', folder],
    input: `${trees.map((tree) => `${empty} ${tree}`).join('\n')}\n`,
  };
}

/** Parses diff-tree's -z output: "<empty> <tree>\n" before each tree's entries, then ":meta\0path\0" per file. */
export function parseTreeListings(out: string, trees: readonly string[]): Map<string, Array<{ path: string; blob: string }>> {
  const listings = new Map(trees.map((tree) => [tree, [] as Array<{ path: string; blob: string }>]));
  const tokens = out.split('\0');
  let current: Array<{ path: string; blob: string }> | undefined;
  for (let i = 0; i < tokens.length; i += 1) {
    let meta = tokens[i] as string;
    const newline = meta.lastIndexOf('\n');
    if (newline >= 0) {
      // A tree with nothing under the folder prints its header line and no entry, so several
      // header lines can run together: the entries that follow belong to the last of them.
      current = listings.get(meta.slice(0, newline).split('\n').at(-1)?.split(' ')[1] ?? '');
      meta = meta.slice(newline + 1);
    }
    if (!meta.startsWith(':')) continue;
    // ":<old mode> <new mode> <old blob> <new blob> <status>", then the path.
    const blob = meta.split(' ')[3];
    const file = tokens[i + 1];
    i += 1;
    if (blob && file !== undefined && !meta.startsWith(':000000 160000')) current?.push({ path: file, blob });
  }
  return listings;
}

/** `cat-file --batch` output: each object's text, or null for a name that names none (or no blob). */
export function parseCatFileBatch(out: Buffer, count: number): Array<string | null> {
  const texts: Array<string | null> = [];
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    const end = out.indexOf(0x0a, at);
    const header = out.subarray(at, end).toString('utf8');
    at = end + 1;
    const blob = /^[0-9a-f]+ blob (\d+)$/.exec(header);
    if (!blob) {
      // "<name> missing" has no content; another type (a tree) has content to skip.
      const other = /^[0-9a-f]+ [a-z]+ (\d+)$/.exec(header);
      if (other) at += Number(other[1]) + 1;
      texts.push(null);
      continue;
    }
    const size = Number(blob[1]);
    texts.push(out.subarray(at, at + size).toString('utf8'));
    at += size + 1;
  }
  return texts;
}

/** `log --no-walk` over many commits: their committer dates (strict ISO 8601); missing commits are left out. */
export function commitDatesRequest(commits: readonly string[]): string[] {
  return ['log', '--no-walk=unsorted', '--ignore-missing', '--format=%H %cI', ...commits, '--'];
}

export function parseCommitDates(out: string): Map<string, string> {
  const dates = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [commit, date] = line.trim().split(' ');
    if (commit && date) dates.set(commit, date);
  }
  return dates;
}

/**
 * `diff-tree --stdin -r --name-status -z` output: the id of each commit read, then a status and a
 * path for each file it changed, every field ending with NUL (paths as they are, never quoted).
 */
export function parseChangedPathsOfCommits(out: string, commits: readonly string[]): Map<string, ChangedPath[]> {
  const changes = new Map(commits.map((commit) => [commit, [] as ChangedPath[]]));
  const fields = out.split('\0');
  let current: ChangedPath[] | undefined;
  for (let i = 0; i < fields.length; i += 1) {
    const field = fields[i] as string;
    if (field === '') continue;
    // A status is a letter (and a score, for a copy or a rename); what follows it is its path.
    if (STATUS.test(field)) current?.push({ status: field, path: fields[(i += 1)] ?? '' });
    else current = changes.get(field);
  }
  return changes;
}

/** `diff --name-status -z` output: a status and a path for each file, every field ending with NUL. */
export function parseNameStatus(out: string): ChangedPath[] {
  const fields = out.split('\0');
  const changed: ChangedPath[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) changed.push({ status: fields[i] as string, path: fields[i + 1] as string });
  return changed;
}

/** `status --porcelain -z` output: the paths with changes (a rename's or a copy's new path; its old one, which follows it, is skipped). */
export function parseStatusPaths(out: string): string[] {
  const fields = out.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i += 1) {
    const field = fields[i] as string;
    if (field.length < 4) continue;
    paths.push(field.slice(3));
    if (/[RC]/.test(field.slice(0, 2))) i += 1;
  }
  return paths;
}

/** A file's status in `--name-status` output: M, A, D, T, U, X, or R/C with a score. */
const STATUS = /^[ACDMRTUX][0-9]*$/;

/** `for-each-ref --format='%(refname) %(objectname) %(objecttype)'` output. */
export function parseRefs(out: string): Array<{ ref: string; sha: string; type: string }> {
  return out
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [ref, sha, type] = line.split(' ');
      return { ref: ref ?? '', sha: sha ?? '', type: type ?? '' };
    });
}

/** `ls-tree -r -z` output: the blobs (files and symbolic links), with their modes. */
export function parseLsTree(out: string): Array<{ mode: string; path: string; blob: string }> {
  const entries: Array<{ mode: string; path: string; blob: string }> = [];
  for (const entry of out.split('\0')) {
    const match = /^(\d+) blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (match) entries.push({ mode: match[1] as string, blob: match[2] as string, path: match[3] as string });
  }
  return entries;
}
