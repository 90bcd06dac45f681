import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import type { GitRepo, RefUpdate } from '../../git/git.ts';

/**
 * A promotion in flight. It is written before any ref moves and removed after the line, the
 * tag, the audit ref and the checked-out files all agree, so a process killed at any point
 * leaves either the old release (nothing moved yet) or enough to finish the new one.
 */
export interface PromotionJournal {
  readonly line: string;
  readonly lineBranch: string;
  readonly oldTip: string;
  readonly newTip: string;
  readonly tagRef: string;
  readonly tagObject: string;
  readonly auditRef: string;
  /** Whether the main worktree has the line checked out, so its index and files must move too. */
  readonly syncWorktree: boolean;
}

const JOURNAL = 'promotion.json';

export async function writeJournal(stateDir: string, journal: PromotionJournal): Promise<void> {
  const file = path.join(stateDir, JOURNAL);
  await writeFile(`${file}.tmp`, JSON.stringify(journal, null, 2));
  // rename is atomic: the journal is either absent or whole.
  await rename(`${file}.tmp`, file);
}

/**
 * Brings the checked-out files along first (a two-way merge that keeps unrelated local edits
 * and refuses conflicting ones), then moves the line, the tag and the audit ref in one
 * transaction. Idempotent: each step checks whether it already happened.
 */
export async function applyPromotion(repo: GitRepo, journal: PromotionJournal): Promise<void> {
  if (journal.syncWorktree && (await repo.currentBranch()) === journal.lineBranch) {
    if ((await repo.indexTree()) === (await repo.treeOf(journal.oldTip))) {
      try {
        await repo.moveCheckout(journal.oldTip, journal.newTip);
      } catch (cause) {
        throw new AgentdevelError('DIRTY_TREE', `uncommitted changes in ${repo.root} conflict with the new release; nothing was promoted`, { cause });
      }
    }
  }
  const updates: RefUpdate[] = [];
  const line = await repo.refValue(journal.line);
  if (line === journal.oldTip) updates.push({ ref: journal.line, newValue: journal.newTip, oldValue: journal.oldTip });
  else if (line !== journal.newTip) {
    throw new AgentdevelError('GIT_FAILED', `${journal.line} moved to ${line ?? 'nothing'} during the promotion; the release was not applied`);
  }
  const tag = await repo.refValue(journal.tagRef);
  if (tag === null) updates.push({ ref: journal.tagRef, newValue: journal.tagObject, oldValue: null });
  else if (tag !== journal.tagObject) throw new AgentdevelError('GIT_FAILED', `${journal.tagRef} already exists and points elsewhere`);
  const audit = await repo.refValue(journal.auditRef);
  if (audit !== journal.newTip) updates.push({ ref: journal.auditRef, newValue: journal.newTip, oldValue: audit });
  if (updates.length > 0) await repo.updateRefs(updates);
}

/** Finishes a promotion that a crash interrupted (if any). Called with the workspace lock held. */
export async function recoverPromotion(repo: GitRepo, stateDir: string): Promise<boolean> {
  const file = path.join(stateDir, JOURNAL);
  const text = await readFile(file, 'utf8').catch(() => null);
  await rm(`${file}.tmp`, { force: true });
  if (text === null) return false;
  const journal = JSON.parse(text) as PromotionJournal;
  if (await repo.objectExists(journal.tagObject)) {
    try {
      await applyPromotion(repo, journal);
    } catch (error) {
      // Local edits made since the crash conflict with the release: keep the old release
      // (nothing moved yet) rather than overwrite the user's work.
      if (!(error instanceof AgentdevelError && error.code === 'DIRTY_TREE')) throw error;
    }
  }
  await rm(file, { force: true });
  return true;
}

export async function clearJournal(stateDir: string): Promise<void> {
  await rm(path.join(stateDir, JOURNAL), { force: true });
}
