import { mkdir, writeFile } from 'node:fs/promises';
import { AgentdevelError } from '../../domain/errors.ts';
import path from 'node:path';
import type { ArtifactFile } from '../../stages/release/artifacts.ts';
import type { CommitPlan, RefPlan, ReleasePlan, ReleaseWrite } from '../../stages/release/plan.ts';
import { applyPromotion, clearJournal, PromotionBlocked, writeJournal, type PromotionJournalInput } from '../../stages/release/journal.ts';
import type { Workspace } from '../workspace/workspace.ts';

export interface Recorded {
  readonly commit: string;
  readonly auditRef: string;
  readonly tag: string | null;
  readonly worktreeSynced: boolean;
}

export interface Applied {
  /** What a recorded decision wrote to git (null for a dry gate). */
  readonly recorded: Recorded | null;
  /** The files a dry gate wrote to its report folder (absolute paths). */
  readonly reportFiles: readonly string[];
}

/** What moved the line, as its errors say: the gate promotes, a person approves. */
export type PromotionVerb = 'promote' | 'approve';
const DONE: Record<PromotionVerb, string> = { promote: 'promoted', approve: 'approved' };

/** Writes a release plan (pipeline/gate/conclude.ts makes it), then indexes the decision in the store. */
export async function applyRelease(workspace: Workspace, plan: ReleasePlan): Promise<Applied> {
  const applied = await writeRelease(workspace, plan.write);
  workspace.store.saveDecision({
    ...plan.row,
    tag: applied.recorded?.tag ?? null,
    auditRef: applied.recorded?.auditRef ?? null,
    recordedCommit: applied.recorded?.commit ?? null,
  });
  return applied;
}

/**
 * Writes what a decision's plan says: a recorded decision's commit on top of the candidate (in
 * its worktree), then its refs; or a dry gate's reports.
 */
export async function writeRelease(workspace: Workspace, write: ReleaseWrite): Promise<Applied> {
  switch (write.kind) {
    case 'record':
      return { recorded: await moveRefs(workspace, await commitFiles(workspace, write.commit), write.refs, 'promote'), reportFiles: [] };
    case 'reports':
      return { recorded: null, reportFiles: await writeReports(write.dir, write.files) };
    case 'nothing':
      return { recorded: null, reportFiles: [] };
    default: {
      const exhaustive: never = write;
      return exhaustive;
    }
  }
}

async function commitFiles(workspace: Workspace, commit: CommitPlan): Promise<string> {
  for (const file of commit.files) {
    const target = path.join(commit.dir, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
  }
  return workspace.repo.commitPaths(commit.dir, commit.files.map((f) => f.path), commit.message);
}

/**
 * Moves a recorded decision's refs to its commit. A promotion (the gate's, or a person's
 * approval) moves the line, adds the annotated tag and the audit ref in one ref transaction and
 * brings a clean, checked-out line along, through a journal that makes a crash at any point
 * recoverable. Anything else (a rejection, a pending release, a refusal) moves its refs in one
 * transaction, the line and the tags untouched.
 */
export async function moveRefs(workspace: Workspace, commit: string, refs: RefPlan, verb: PromotionVerb): Promise<Recorded> {
  if (refs.promotion) {
    const journal = await journalPromotion(workspace, commit, refs, verb);
    await applyJournal(workspace, journal, verb);
    return { commit, auditRef: journal.auditRef, tag: refs.promotion.tag, worktreeSynced: journal.syncWorktree };
  }
  const { repo } = workspace;
  const updates = [];
  for (const ref of refs.pointAtCommit) updates.push({ ref, newValue: commit, oldValue: await repo.refValue(ref) });
  for (const { ref, oldValue } of refs.remove) updates.push({ ref, newValue: null, oldValue });
  await repo.updateRefs(updates);
  return { commit, auditRef: refs.auditRef, tag: null, worktreeSynced: false };
}

/**
 * Everything a promotion does before a ref moves: the annotated tag object, the check that the
 * index holds nothing staged, and the journal of the transaction. After this a crash loses
 * nothing: the next command finishes the promotion from the journal.
 */
export async function journalPromotion(workspace: Workspace, commit: string, refs: RefPlan, verb: PromotionVerb): Promise<PromotionJournalInput> {
  const { repo } = workspace;
  const promotion = refs.promotion;
  if (!promotion) throw new Error('journalPromotion: the plan promotes nothing');
  const tagObject = await repo.createTagObject(promotion.tag, commit, promotion.tagMessage);
  const checkedOut = (await repo.currentBranch()) === promotion.lineBranch;
  if (checkedOut && (await repo.indexTree()) !== (await repo.treeOf(promotion.from))) {
    throw new AgentdevelError('DIRTY_TREE', `the index of ${repo.root} has staged changes; the release was not ${DONE[verb]}`);
  }
  const journal = {
    line: promotion.line,
    lineBranch: promotion.lineBranch,
    oldTip: promotion.from,
    newTip: commit,
    tagRef: `refs/tags/${promotion.tag}`,
    tagObject,
    auditRef: refs.auditRef,
    syncWorktree: checkedOut,
    ...(refs.remove.length > 0 ? { removeRefs: refs.remove.map((r) => ({ ...r })) } : {}),
  };
  await workspace.checkpoint('release-committed');
  await writeJournal(workspace.stateDir, journal);
  await workspace.checkpoint('journal-written');
  return journal;
}

/** Applies a written promotion journal, for the gate's promotions and a person's approvals alike. */
export async function applyJournal(workspace: Workspace, journal: PromotionJournalInput, verb: PromotionVerb): Promise<void> {
  try {
    await applyPromotion(workspace.repo, journal, workspace.checkpoint);
  } catch (error) {
    // Blocked before anything moved (a conflict with local edits, a tag or a line that moved):
    // nothing to finish later, and the user is told. Any other failure keeps the journal, and
    // the next command finishes the promotion.
    if (!(error instanceof PromotionBlocked)) throw error;
    await clearJournal(workspace.stateDir);
    const code = { conflict: 'DIRTY_TREE', 'line-moved': 'CANDIDATE_NOT_ON_RELEASE', 'tag-exists': 'GIT_FAILED' } as const;
    throw new AgentdevelError(code[error.reason], `${error.message}; nothing was ${DONE[verb]}`, { cause: error, hint: `To ${verb} it anyway, ${error.remedy}, then run the command again.` });
  }
  await clearJournal(workspace.stateDir);
}

/** A dry gate's reports, written flat into `dir`. */
async function writeReports(dir: string, files: readonly ArtifactFile[]): Promise<string[]> {
  const written: string[] = [];
  await mkdir(dir, { recursive: true });
  for (const file of files) {
    const target = path.join(dir, file.path);
    await writeFile(target, file.content);
    written.push(target);
  }
  return written;
}
