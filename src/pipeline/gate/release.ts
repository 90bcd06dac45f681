import { mkdir, writeFile } from 'node:fs/promises';
import { AgentdevelError } from '../../domain/errors.ts';
import path from 'node:path';
import { buildArtifacts, releaseCommitMessage, releaseFolder, tagMessage, type LineHistory, type ReleaseEvidence } from '../../stages/release/artifacts.ts';
import type { ReportRendering } from '../../stages/report/html/flip-report.ts';
import { applyPromotion, clearJournal, PromotionBlocked, writeJournal } from '../../stages/release/journal.ts';
import { readLineHistory } from '../workspace/line-history.ts';
import { auditRef, pendingRef } from '../workspace/versions.ts';
import { lineRef, type Workspace } from '../workspace/workspace.ts';

export interface Recorded {
  readonly commit: string;
  readonly auditRef: string;
  readonly tag: string | null;
  readonly worktreeSynced: boolean;
}

async function commitArtifacts(workspace: Workspace, dir: string, evidence: ReleaseEvidence, rendering: ReportRendering, history: LineHistory | null): Promise<string> {
  const files = buildArtifacts(evidence, rendering, history);
  for (const file of files) {
    const target = path.join(dir, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
  }
  return workspace.repo.commitPaths(dir, files.map((f) => f.path), releaseCommitMessage(evidence));
}

/**
 * Promotes an accepted RC: commits the release artifacts on top of it (in the RC's worktree),
 * then moves the line, adds the annotated tag and the audit ref in one ref transaction, and
 * brings a clean, checked-out line along. A journal makes a crash at any point recoverable.
 */
export async function promote(workspace: Workspace, candidateDir: string, oldTip: string, evidence: ReleaseEvidence, rendering: ReportRendering): Promise<Recorded> {
  const { repo, config } = workspace;
  // The line's index (releases/<bp>/index.html) is rewritten with every release, from what the earlier ones recorded.
  // So is CHANGELOG.md, dated by the candidate's commit (a rebuild from git gives the same bytes).
  const history = { ...(await readLineHistory(repo, config)), candidateDate: (await repo.commitDate(evidence.candidate.commit))?.slice(0, 10) ?? null };
  const releaseCommit = await commitArtifacts(workspace, candidateDir, evidence, rendering, history);
  const tag = evidence.release as string;
  const tagObject = await repo.createTagObject(tag, releaseCommit, tagMessage(evidence));
  const checkedOut = (await repo.currentBranch()) === config.line.branch;
  if (checkedOut && (await repo.indexTree()) !== (await repo.treeOf(oldTip))) {
    throw new AgentdevelError('DIRTY_TREE', `the index of ${repo.root} has staged changes; the release was not promoted`);
  }
  const journal = {
    line: lineRef(config),
    lineBranch: config.line.branch,
    oldTip,
    newTip: releaseCommit,
    tagRef: `refs/tags/${tag}`,
    tagObject,
    auditRef: auditRef(config, evidence.iteration),
    syncWorktree: checkedOut,
  };
  await workspace.checkpoint('release-committed');
  await writeJournal(workspace.stateDir, journal);
  await workspace.checkpoint('journal-written');
  try {
    await applyPromotion(repo, journal, workspace.checkpoint);
  } catch (error) {
    // Blocked before anything moved (a conflict with local edits, a tag or a line that moved):
    // nothing to finish later, and the user is told. Any other failure keeps the journal, and
    // the next command finishes the promotion.
    if (!(error instanceof PromotionBlocked)) throw error;
    await clearJournal(workspace.stateDir);
    const code = { conflict: 'DIRTY_TREE', 'line-moved': 'CANDIDATE_NOT_ON_RELEASE', 'tag-exists': 'GIT_FAILED' } as const;
    throw new AgentdevelError(code[error.reason], `${error.message}; nothing was promoted`, { cause: error, hint: `To promote it anyway, ${error.remedy}, then run the command again.` });
  }
  await clearJournal(workspace.stateDir);
  return { commit: releaseCommit, auditRef: journal.auditRef, tag, worktreeSynced: checkedOut };
}

/** Records a rejected RC off the line: its commit plus the rejection report, under refs/agentdevel/. */
export async function recordRejection(workspace: Workspace, candidateDir: string, _oldTip: string, evidence: ReleaseEvidence, rendering: ReportRendering): Promise<Recorded> {
  const commit = await commitArtifacts(workspace, candidateDir, evidence, rendering, null);
  const ref = auditRef(workspace.config, evidence.iteration);
  const previous = await workspace.repo.refValue(ref);
  await workspace.repo.updateRefs([{ ref, newValue: commit, oldValue: previous }]);
  return { commit, auditRef: ref, tag: null, worktreeSynced: false };
}

/**
 * Holds an accepted RC for a person's approval (the approval layer): its commit plus the pending
 * report, under refs/agentdevel/pending/ and its audit ref, in one transaction. The line and
 * the tags do not move until `agentdevel approve`.
 */
export async function holdForApproval(workspace: Workspace, candidateDir: string, _oldTip: string, evidence: ReleaseEvidence, rendering: ReportRendering): Promise<Recorded> {
  const commit = await commitArtifacts(workspace, candidateDir, evidence, rendering, null);
  const audit = auditRef(workspace.config, evidence.iteration);
  const pending = pendingRef(workspace.config, evidence.iteration);
  await workspace.repo.updateRefs([
    { ref: pending, newValue: commit, oldValue: await workspace.repo.refValue(pending) },
    { ref: audit, newValue: commit, oldValue: await workspace.repo.refValue(audit) },
  ]);
  return { commit, auditRef: audit, tag: null, worktreeSynced: false };
}

/**
 * A dry gate's reports: the files a recorded decision would commit in its release folder
 * (report.md, report.html, decision.json, flips.json, cases.json), written flat into `dir`.
 */
export async function writeReports(dir: string, evidence: ReleaseEvidence, rendering: ReportRendering): Promise<string[]> {
  const folder = `${releaseFolder(evidence)}/`;
  const written: string[] = [];
  await mkdir(dir, { recursive: true });
  for (const file of buildArtifacts(evidence, rendering).filter((f) => f.path.startsWith(folder))) {
    const target = path.join(dir, file.path.slice(folder.length));
    await writeFile(target, file.content);
    written.push(target);
  }
  return written;
}
