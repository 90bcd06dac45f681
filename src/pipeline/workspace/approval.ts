// The human layer of the gate. An accepted RC under `gate.layers: [..., {"layer": "approval"}]`
// waits as a pending release (refs/agentdevel/pending/<bp>/iter-NNN, its report beside it).
// `approve` promotes it with the same journalled, all-or-nothing transaction as any promotion;
// `decline` records the refusal in git. Either way the pending ref goes in the same transaction.
import { nullWhenAbsent } from '../../domain/absent.ts';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../../domain/ports/clock.ts';
import { parseDecisionDocument, type DecisionDocument } from '../../domain/decision.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { parseCaseEvidence } from '../../domain/case-evidence.ts';
import { commitText } from '../../stages/report/escape/commit-message.ts';
import { decisionRow } from '../../stages/report/decision-row.ts';
import { renderFlipReportHtml, type ReportRendering } from '../../stages/report/html/flip-report.ts';
import { renderLineIndexHtml } from '../../stages/report/html/line-index.ts';
import { changelogEntry, releaseFolder, releasePoint, reportTitle } from '../../stages/release/artifacts.ts';
import { verdictRefs } from '../../stages/release/plan.ts';
import { renderChangelog } from '../../stages/report/changelog.ts';
import { readLineHistory } from './line-history.ts';
import type { PromotionJournalInput } from '../../stages/release/journal.ts';
import { applyJournal, journalPromotion, moveRefs } from '../gate/release.ts';
import { withCheckout } from './checkout.ts';
import { refuseUngatedPending, type PendingTrust } from './pending-integrity.ts';
import { auditRef, iterationOf, pendingRef, pendingRefPrefix } from './versions.ts';
import { lineRef, lineTip, refuseShallowHistory, type Workspace } from './workspace.ts';

export interface PendingRelease {
  readonly iteration: number;
  readonly ref: string;
  readonly commit: string;
  readonly document: DecisionDocument;
}

/** The pending releases of this blueprint, oldest first. */
export async function pendingReleases(workspace: Workspace): Promise<PendingRelease[]> {
  const found: PendingRelease[] = [];
  for (const { ref } of await workspace.repo.refs(pendingRefPrefix(workspace.config))) {
    const iteration = iterationOf(ref);
    if (iteration !== null) found.push(await readPending(workspace, iteration));
  }
  return found.sort((a, b) => a.iteration - b.iteration);
}

/** "3", "iter-003" or the pending ref itself. */
export function pendingIteration(selector: string): number | null {
  const match = /^(?:.*\/)?(?:iter-)?0*(\d+)$/.exec(selector.trim());
  return match?.[1] ? Number(match[1]) : null;
}

async function readPending(workspace: Workspace, iteration: number): Promise<PendingRelease> {
  const { repo, config } = workspace;
  const ref = pendingRef(config, iteration);
  const commit = await repo.refValue(ref);
  if (!commit) {
    throw new AgentdevelError('USAGE', `no release candidate of iteration ${iteration} awaits approval (${ref} does not exist)`, {
      hint: '`agentdevel log` lists the pending ones; `git fetch origin "refs/agentdevel/*:refs/agentdevel/*"` brings those of a remote.',
    });
  }
  // Anything can be written to a ref: one that names no commit holds no pending release.
  const type = (await repo.refs(ref)).find((r) => r.ref === ref)?.type ?? 'missing';
  if (type !== 'commit') {
    throw new AgentdevelError('PENDING_NOT_GATED', `${ref} points at ${type === 'missing' ? 'an object this repository does not have' : `a ${type}`} (${commit.slice(0, 10)}), not at a commit: it holds no release candidate the gate held; nothing was approved`, {
      hint: `Remove it (git update-ref -d ${ref}), or point it back at the commit the gate recorded, and run the command again.`,
    });
  }
  const file = `${releaseFolder({ blueprint: config.blueprint, outcome: 'pending', release: null, iteration })}/decision.json`;
  const text = await repo.readFileAt(commit, file);
  if (text === null) throw new AgentdevelError('HISTORY_INVALID', `${ref}:${file}: missing; this pending release cannot be read`);
  const { document } = parseDecisionDocument(text, `${ref}:${file}`);
  if (!document) throw new AgentdevelError('HISTORY_INVALID', `${ref}:${file}: not a decision this agentdevel can approve`);
  return { iteration, ref, commit, document };
}

interface Verdict {
  readonly verdict: 'approved' | 'declined';
  readonly by: string;
  readonly reason: string | null;
  /** What an approval trusted the pending commit on (null for a refusal, which promotes nothing). */
  readonly trust: PendingTrust | null;
}

/** The approval commit's words for what it trusted. */
const TRUST_TEXT: Record<PendingTrust, (commit: string) => string> = {
  'gate-record': (commit) => `The gate on the approving machine recorded pending commit ${commit}.`,
  'approver-review': (commit) => `The approving machine had no record of the gate; the approver reviewed and vouched for pending commit ${commit} (--trust-pending).`,
};

/**
 * Commits the person's verdict on top of the pending release: the report and decision move to
 * the folder of the outcome (releases/<bp>/vN, or releases/<bp>/declined/iter-NNN) and record
 * who decided and when.
 */
async function commitVerdict(workspace: Workspace, pending: PendingRelease, verdict: Verdict, clock: Clock, rendering: ReportRendering): Promise<string> {
  const { config, repo } = workspace;
  const at = clock.now().toISOString();
  const outcome = verdict.verdict === 'approved' ? ('promoted' as const) : ('declined' as const);
  const from = releaseFolder({ blueprint: config.blueprint, outcome: 'pending', release: null, iteration: pending.iteration });
  const to = releaseFolder({ blueprint: config.blueprint, outcome, release: pending.document.release, iteration: pending.iteration });
  const document: DecisionDocument = { ...pending.document, outcome, approval: { verdict: verdict.verdict, by: verdict.by, at, reason: verdict.reason } };
  return withCheckout(workspace, pending.commit, async ({ dir }) => {
    await mkdir(path.dirname(path.join(dir, to)), { recursive: true });
    await rename(path.join(dir, from), path.join(dir, to));
    await writeFile(path.join(dir, to, 'decision.json'), `${JSON.stringify(document, null, 2)}\n`);
    // report.md: its Decision row rendered again from the document as it now reads (the rest of
    // the report rests on evidence git does not keep whole: stages/report/decision-row.ts).
    const reportFile = path.join(dir, to, 'report.md');
    const report = await readFile(reportFile, 'utf8');
    await writeFile(reportFile, report.replace(decisionRow(pending.document), () => decisionRow(document)));
    // report.html is rebuilt from the document as it now reads (no longer "awaiting approval").
    const casesText = await readFile(path.join(dir, to, 'cases.json'), 'utf8').catch(nullWhenAbsent);
    const evidence = casesText === null ? null : parseCaseEvidence(casesText, `${to}/cases.json`);
    await writeFile(path.join(dir, to, 'report.html'), renderFlipReportHtml({ title: reportTitle(document), document, evidence, diagnosis: null }, rendering));
    const paths = [from, to];
    if (outcome === 'promoted') {
      // The line's index lists the release it now has.
      const history = await readLineHistory(repo, config);
      const own = releasePoint(
        { release: pending.document.release, iteration: pending.iteration, decision: document.gate, intent: document.intent, simulated: document.simulated, runs: evidence?.runs ?? null },
        to,
        { date: at, approvedBy: verdict.by },
      );
      const index = `releases/${config.blueprint}/index.html`;
      await writeFile(path.join(dir, index), renderLineIndexHtml({ blueprint: config.blueprint, initialPassRate: history.initialPassRate ?? document.gate.passRates.baseline, releases: [...history.releases, own] }));
      paths.push(index);
      const changelog = `releases/${config.blueprint}/CHANGELOG.md`;
      const date = (await repo.commitDate(document.candidate.commit))?.slice(0, 10) ?? null;
      const entries = [...(history.changelog ?? []), changelogEntry({ ...document, decision: document.gate }, date, verdict.by)];
      await writeFile(path.join(dir, changelog), renderChangelog(config.blueprint, entries));
      paths.push(changelog);
    }
    const message =
      verdict.verdict === 'approved'
        ? `agentdevel: approve release ${commitText(pending.document.release ?? '')} (iteration ${pending.iteration})\n\nApproved by ${commitText(verdict.by)}.\n${verdict.trust ? `${TRUST_TEXT[verdict.trust](pending.commit)}\n` : ''}`
        : `agentdevel: decline release candidate (iteration ${pending.iteration})\n\nDeclined by ${commitText(verdict.by)}: ${commitText(verdict.reason ?? '')}\n`;
    return repo.commitPaths(dir, paths, message);
  });
}

/**
 * Everything an approval does before a ref moves: the verdict committed on top of the pending
 * release, the tag object, and the journal of the transaction. After this a crash loses
 * nothing: the next command finishes the promotion from the journal.
 */
export async function prepareApproval(workspace: Workspace, iteration: number, by: string | null, clock: Clock, rendering: ReportRendering, trustPending: string | null = null): Promise<PromotionJournalInput> {
  const { repo, config } = workspace;
  const pending = await readPending(workspace, iteration);
  const tip = await lineTip(workspace);
  if (tip !== pending.document.baseline.commit) {
    throw new AgentdevelError('CANDIDATE_NOT_ON_RELEASE', `the line ${config.line.branch} moved since iteration ${iteration} was gated (from ${pending.document.baseline.commit.slice(0, 10)} to ${tip.slice(0, 10)}); approving it would skip that release`, {
      hint: `Decline it (agentdevel decline ${iteration} --reason "superseded") and gate the change again on the current release.`,
    });
  }
  const trust = await refuseUngatedPending(workspace, pending, tip, trustPending);
  const verdict = { verdict: 'approved' as const, by: by ?? (await repo.committer()), reason: null, trust };
  const commit = await commitVerdict(workspace, pending, verdict, clock, rendering);
  return journalPromotion(workspace, commit, verdictRefs('approved', { document: pending.document, pending, lineTip: tip, refs: verdictRefNames(workspace, iteration) }), 'approve');
}

/** Promotes a pending release: the line, its tag, the audit ref and the pending ref move in one journalled transaction. */
export async function approvePending(workspace: Workspace, iteration: number, by: string | null, clock: Clock, rendering: ReportRendering, trustPending: string | null = null): Promise<{ tag: string; commit: string }> {
  await refuseShallowHistory(workspace, 'approve');
  const journal = await prepareApproval(workspace, iteration, by, clock, rendering, trustPending);
  await applyJournal(workspace, journal, 'approve');
  return { tag: journal.tagRef.replace('refs/tags/', ''), commit: journal.newTip };
}

/** Records a person's refusal: the audit ref moves to the declined report and the pending ref goes, together. */
export async function declinePending(workspace: Workspace, iteration: number, reason: string, by: string | null, clock: Clock, rendering: ReportRendering): Promise<{ commit: string }> {
  const { repo } = workspace;
  const pending = await readPending(workspace, iteration);
  const commit = await commitVerdict(workspace, pending, { verdict: 'declined', by: by ?? (await repo.committer()), reason, trust: null }, clock, rendering);
  await moveRefs(workspace, commit, verdictRefs('declined', { document: pending.document, pending, lineTip: pending.document.baseline.commit, refs: verdictRefNames(workspace, iteration) }), 'approve');
  return { commit };
}

function verdictRefNames(workspace: Workspace, iteration: number) {
  return { line: lineRef(workspace.config), lineBranch: workspace.config.line.branch, audit: auditRef(workspace.config, iteration) };
}
