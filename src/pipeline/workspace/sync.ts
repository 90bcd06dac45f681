import type { Config } from '../../config/schema.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { LABELS_FILE, mergeLabelDocuments } from '../../domain/label-aliases.ts';
import type { HistoryReader, HistoryWriter, RefReader, Remotes } from '../../domain/ports/repository.ts';
import { labelsText, readLabelsAt } from './label-aliases.ts';
import { lineRef } from './workspace.ts';

/**
 * What makes up the line besides its branch: the release tags and agentdevel's audit refs
 * (refs/agentdevel/*, which git neither fetches nor pushes by default, so a fresh clone shows
 * an empty `log`).
 */
export function lineRefspecs(config: Config): { fetch: string[]; push: string[] } {
  const tags = `refs/tags/${config.line.tagPrefix}${config.blueprint}/*`;
  return {
    fetch: ['refs/agentdevel/*:refs/agentdevel/*', `${tags}:${tags}`],
    push: [`${lineRef(config)}:${lineRef(config)}`, `${tags}:${tags}`, 'refs/agentdevel/*:refs/agentdevel/*'],
  };
}

/** A fetch or push of the line's refs that has not finished by then has hung (a remote that never answers, a credential prompt); `sync --timeout` changes it. */
export const DEFAULT_SYNC_TIMEOUT_S = 30;

/** Where `sync` puts the remote's refs/agentdevel/* before it reconciles them with this clone's (removed after). */
const FETCHED_PREFIX = 'refs/agentdevel-fetched/';

export interface SyncRequest {
  readonly remote: string;
  readonly fetch: boolean;
  readonly push: boolean;
  /** How long each of the fetch and the push may take (default DEFAULT_SYNC_TIMEOUT_S). */
  readonly timeoutMs?: number;
}

export interface SyncResult {
  readonly fetched: string[];
  readonly pushed: string[];
  /** Refs changed in both clones and merged here (label aliases, gradient records), each with how. */
  readonly merged: string[];
}

/** Fetches, then pushes, the line's refs: after it, the remote and this clone hold the same releases and audit refs. */
export async function syncLine(repo: RefReader & HistoryReader & HistoryWriter & Remotes, config: Config, request: SyncRequest): Promise<SyncResult> {
  const refspecs = lineRefspecs(config);
  const timeoutMs = request.timeoutMs ?? DEFAULT_SYNC_TIMEOUT_S * 1000;
  // A pull request's checkout has no local line branch; fetch it too, unless it is checked out here.
  const line = lineRef(config);
  const others = [`refs/tags/${config.line.tagPrefix}${config.blueprint}/*:refs/tags/${config.line.tagPrefix}${config.blueprint}/*`];
  if ((await repo.currentBranch()) !== config.line.branch) others.push(`${line}:${line}`);
  let merged: string[] = [];
  if (request.fetch) {
    // refs/agentdevel/* is fetched aside (forced), then reconciled ref by ref: two clones that both
    // recorded label aliases or gradient records have diverged there, which a plain fetch refuses.
    const staged = `${FETCHED_PREFIX}${request.remote}/`;
    try {
      await transfer(repo, 'fetch', request.remote, [`+refs/agentdevel/*:${staged}*`, ...others], timeoutMs);
      merged = await reconcileFetched(repo, config, staged, request.remote);
    } finally {
      for (const { ref } of await repo.refs(staged)) await repo.deleteRef(ref);
    }
  }
  if (request.push) await transfer(repo, 'push', request.remote, refspecs.push, timeoutMs);
  return { fetched: request.fetch ? [...refspecs.fetch.slice(0, 1), ...others] : [], pushed: request.push ? refspecs.push : [], merged };
}

async function transfer(repo: RefReader & HistoryReader & HistoryWriter & Remotes, verb: 'fetch' | 'push', remote: string, specs: readonly string[], timeoutMs: number): Promise<void> {
  const failure = await repo.transferRefs(verb, remote, specs, timeoutMs);
  if (failure === null) return;
  const hung = failure.startsWith('no answer within');
  const rejected = /\[rejected\]|non-fast-forward|fetch first/.test(failure);
  throw new AgentdevelError('GIT_FAILED', `git ${verb} ${remote} failed: ${failure}${hung ? ` (it was stopped; nothing ${verb === 'fetch' ? 'was fetched' : 'was pushed'})` : ''}`, {
    hint: hung
      ? `Check that the remote answers (git ls-remote ${remote}), or give it longer: agentdevel sync --timeout SECONDS.`
      : rejected
        ? `The remote holds commits this clone lacks on a ref named above: for the line, pull it (git pull --ff-only) and sync again; for refs/agentdevel/*, sync again (it fetches and merges them first).`
        : "A git command failed; the message above has git's own words.",
  });
}

/** How a ref changed in both clones is made one; others (an RC's audit ref, a release tag) are refused. */
type Kind = 'labels' | 'gradient' | 'other';

function kindOf(ref: string, config: Config): Kind {
  if (ref === `refs/agentdevel/labels/${config.blueprint}`) return 'labels';
  if (/^refs\/agentdevel\/(scratch\/[^/]+\/)?gradient\//.test(ref)) return 'gradient';
  return 'other';
}

/**
 * Brings each fetched ref into refs/agentdevel/: new refs are created, refs that moved on one
 * side only fast-forward (or stay ahead here, for the push), and refs both clones moved are
 * merged when they hold documents that merge: the label aliases (their union) and an
 * iteration's gradient records (a merge commit keeping both attempts' history, this clone's
 * document at the tip). Any other ref that diverged is an error naming it.
 */
async function reconcileFetched(repo: RefReader & HistoryReader & HistoryWriter & Remotes, config: Config, staged: string, remote: string): Promise<string[]> {
  const merged: string[] = [];
  const conflicts: string[] = [];
  for (const { ref: fetchedRef, sha: theirs } of await repo.refs(staged)) {
    const ref = `refs/agentdevel/${fetchedRef.slice(staged.length)}`;
    const ours = await repo.refValue(ref);
    if (ours === theirs) continue;
    if (ours === null || (await repo.isAncestor(ours, theirs))) {
      await repo.updateRefs([{ ref, newValue: theirs, oldValue: ours }]);
      continue;
    }
    if (await repo.isAncestor(theirs, ours)) continue;
    const kind = kindOf(ref, config);
    if (kind === 'other') {
      conflicts.push(ref);
      continue;
    }
    const message = `merge ${ref} of ${remote} (${theirs.slice(0, 10)}) into this clone's (${ours.slice(0, 10)})\n`;
    const files =
      kind === 'labels'
        ? [{ name: LABELS_FILE, content: labelsText(mergeLabelDocuments(await readLabelsAt(repo, ours, ref), await readLabelsAt(repo, theirs, `${remote}:${ref}`))) }]
        : await documentFiles(repo, ours);
    const commit = await repo.documentCommit([ours, theirs], files, message);
    await repo.updateRefs([{ ref, newValue: commit, oldValue: ours }]);
    merged.push(`${ref} (${kind === 'labels' ? 'the aliases of both' : "both attempts kept, this clone's at the tip"})`);
  }
  if (conflicts.length > 0) {
    throw new AgentdevelError('GIT_FAILED', `sync: ${conflicts.join(', ')} ${conflicts.length === 1 ? 'differs' : 'differ'} here and on ${remote}, and neither contains the other (two clones recorded the same iteration)`, {
      hint: `Keep one: delete this clone's (git update-ref -d REF) to take ${remote}'s, or push yours over it (git push --force ${remote} REF:REF); the other refs were synced.`,
    });
  }
  return merged;
}

/** The files of a document commit (its top-level blobs), to write again in a merge. */
async function documentFiles(repo: RefReader & HistoryReader & HistoryWriter & Remotes, commit: string): Promise<Array<{ name: string; content: string }>> {
  const files: Array<{ name: string; content: string }> = [];
  for (const file of await repo.filesUnder(commit, '.')) files.push({ name: file.path, content: (await repo.readFileAt(commit, file.path)) ?? '' });
  return files;
}
