import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { noCheckpoint, type Checkpoint } from '../../domain/ports/checkpoint.ts';
import { nullWhenAbsent } from '../../domain/absent.ts';
import { parseStateDocument } from '../../domain/json-document.ts';
import { z } from '../../domain/zod.ts';
import type { PromotionRefs, RefUpdate } from '../../domain/ports/refs.ts';

const sha = z.string().regex(/^[0-9a-f]{40,64}$/);

/**
 * A promotion in flight. It is written before any ref moves and removed after the line, the
 * tag, the audit ref and the checked-out files all agree, so a process killed at any point
 * leaves either the old release (nothing moved yet) or enough to finish the new one.
 */
const journalSchema = z.object({
  line: z.string().min(1),
  lineBranch: z.string().min(1),
  oldTip: sha,
  newTip: sha,
  tagRef: z.string().min(1),
  tagObject: sha,
  auditRef: z.string().min(1),
  /** Whether the main worktree had the line checked out when the promotion began. */
  syncWorktree: z.boolean(),
  /** Refs the promotion removes in the same transaction (the pending ref of an approved release). */
  removeRefs: z.array(z.object({ ref: z.string().min(1), oldValue: sha })).default([]),
});
export type PromotionJournal = z.output<typeof journalSchema>;
export type PromotionJournalInput = z.input<typeof journalSchema>;

const JOURNAL = 'promotion.json';

export async function writeJournal(stateDir: string, journal: PromotionJournalInput): Promise<void> {
  const file = path.join(stateDir, JOURNAL);
  await writeFile(`${file}.tmp`, JSON.stringify(journal, null, 2));
  // rename is atomic: the journal is either absent or whole.
  await rename(`${file}.tmp`, file);
}

/** The promotion cannot go on, and nothing has moved: the line, the tag and the files are as they were. */
export class PromotionBlocked extends Error {
  constructor(
    readonly reason: 'conflict' | 'line-moved' | 'tag-exists',
    message: string,
    /** What the user can do about it, as a next step. */
    readonly remedy: string,
  ) {
    super(message);
    this.name = 'PromotionBlocked';
  }
}

const short = (value: string | null) => (value === null ? 'nothing' : value.slice(0, 10));

/**
 * Applies a promotion. Every check comes before anything moves; then the line, the tag and the
 * audit ref move in one transaction; then the checked-out files follow the line. So the
 * checkout never moves while the line does not. Idempotent: each step checks whether it
 * already happened, so a promotion interrupted at any point can be applied again.
 *
 * Throws PromotionBlocked when nothing moved and it cannot go on (a conflict with uncommitted
 * changes, a tag or a line that moved meanwhile), and PROMOTION_UNFINISHED when the refs moved
 * but the checked-out files could not follow.
 */
export async function applyPromotion(repo: PromotionRefs, input: PromotionJournalInput, checkpoint: Checkpoint = noCheckpoint): Promise<void> {
  const journal = journalSchema.parse(input);
  const line = await repo.refValue(journal.line);
  if (line !== journal.oldTip && line !== journal.newTip) {
    throw new PromotionBlocked(
      'line-moved',
      `${journal.line} moved to ${short(line)} since the promotion of ${journal.tagRef.replace('refs/tags/', '')} began (from ${short(journal.oldTip)})`,
      `the release commit ${short(journal.newTip)} no longer follows the line; rebase or gate it again`,
    );
  }
  const tag = await repo.refValue(journal.tagRef);
  if (tag !== null && tag !== journal.tagObject) {
    throw new PromotionBlocked('tag-exists', `${journal.tagRef} already exists and points elsewhere (${short(tag)})`, `delete that tag (git tag -d ${journal.tagRef.replace('refs/tags/', '')}) if it is not a release`);
  }
  const checkedOut = (await repo.currentBranch()) === journal.lineBranch;
  if (line === journal.oldTip && checkedOut) {
    // File times and stat data may have changed (a checkout, an editor): compare contents.
    await repo.refreshIndex();
    const conflict = await repo.checkoutMoveConflict(journal.oldTip, journal.newTip);
    if (conflict !== null) {
      throw new PromotionBlocked('conflict', `uncommitted changes in ${repo.root} conflict with the new release (${conflict})`, 'commit or stash them (git stash -u)');
    }
  }
  const updates: RefUpdate[] = [];
  if (line === journal.oldTip) updates.push({ ref: journal.line, newValue: journal.newTip, oldValue: journal.oldTip });
  if (tag === null) updates.push({ ref: journal.tagRef, newValue: journal.tagObject, oldValue: null });
  const audit = await repo.refValue(journal.auditRef);
  if (audit !== journal.newTip) updates.push({ ref: journal.auditRef, newValue: journal.newTip, oldValue: audit });
  for (const { ref, oldValue } of journal.removeRefs) {
    if ((await repo.refValue(ref)) === oldValue) updates.push({ ref, newValue: null, oldValue });
  }
  if (updates.length > 0) await repo.updateRefs(updates);
  await checkpoint('refs-moved');
  if (checkedOut) await followLine(repo, journal);
}

/** Brings the main worktree's index and files from the old release to the new one, keeping unrelated local changes. */
async function followLine(repo: PromotionRefs, journal: PromotionJournal): Promise<void> {
  if ((await repo.indexTree()) === (await repo.treeOf(journal.newTip))) return;
  await repo.refreshIndex();
  const conflict = await repo.checkoutMoveConflict(journal.oldTip, journal.newTip);
  if (conflict === null) {
    await repo.moveCheckout(journal.oldTip, journal.newTip);
    return;
  }
  throw new AgentdevelError(
    'PROMOTION_UNFINISHED',
    `${journal.line} is at the new release ${journal.tagRef.replace('refs/tags/', '')}, but the files of ${repo.root} could not follow: ${conflict}`,
    { hint: `Commit or stash your changes (git stash -u), then run any agentdevel command to bring the files along (or run: git read-tree -m -u ${journal.oldTip} ${journal.newTip}).` },
  );
}

/** The journal a crash left behind, if any. Damaged means it is there but cannot be read. */
async function readJournal(file: string): Promise<PromotionJournal | 'damaged' | null> {
  const text = await readFile(file, 'utf8').catch(nullWhenAbsent);
  return text === null ? null : parseStateDocument(text, journalSchema);
}

/**
 * Finishes a promotion that a crash interrupted (if any). Called with the workspace lock held,
 * before anything looks at the line. It never drops a promotion silently: it finishes it, or
 * it stops with an error that says how to finish (or abandon) it, the journal kept.
 */
export async function recoverPromotion(repo: PromotionRefs, stateDir: string): Promise<boolean> {
  const file = path.join(stateDir, JOURNAL);
  // A journal never renamed into place was never acted on: nothing moved.
  await rm(`${file}.tmp`, { force: true });
  const journal = await readJournal(file);
  if (journal === null) return false;
  const abandon = `or abandon the promotion by deleting ${file}`;
  if (journal === 'damaged') {
    throw new AgentdevelError('PROMOTION_UNFINISHED', `${file} records an interrupted promotion but is damaged, so it cannot be finished`, {
      hint: `Check that \`git status\` is clean and the line's branch and tags are as you expect (refs move all at once, so they are consistent), then delete ${file}.`,
    });
  }
  if (!(await repo.objectExists(journal.tagObject)) || !(await repo.objectExists(journal.newTip))) {
    throw new AgentdevelError('PROMOTION_UNFINISHED', `${file} records a promotion whose commit or tag object is missing from the repository`, {
      hint: `Nothing of it moved the line; delete ${file} to abandon it.`,
    });
  }
  try {
    await applyPromotion(repo, journal);
  } catch (error) {
    if (!(error instanceof PromotionBlocked)) throw error;
    throw new AgentdevelError('PROMOTION_UNFINISHED', `an interrupted promotion cannot be finished: ${error.message}; nothing moved`, {
      hint: `To finish it, ${error.remedy}, then run any agentdevel command; ${abandon}.`,
      cause: error,
    });
  }
  await rm(file, { force: true });
  return true;
}

export async function clearJournal(stateDir: string): Promise<void> {
  await rm(path.join(stateDir, JOURNAL), { force: true });
}
