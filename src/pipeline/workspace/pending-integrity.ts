// Gathers from git (and this workspace's store) what `approve` holds a pending release against,
// and refuses one that is not exactly what the gate decided on, or that nothing here can vouch
// the gate wrote. The rules are pure (src/stages/release/pending-integrity.ts).
import type { DecisionDocument } from '../../domain/decision.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { recordedOutsidePaths } from '../../domain/human-change.ts';
import { readFlipsDocument } from '../../domain/git-documents.ts';
import { releaseFolder } from '../../stages/release/artifacts.ts';
import { pendingIntegrityProblems, pendingTrust, type PendingDecisionFacts, type PendingFacts } from '../../stages/release/pending-integrity.ts';
import { linksLeavingBlueprint } from '../loop/candidate.ts';
import { auditRef, currentRelease, tagName } from './versions.ts';
import type { Workspace } from './workspace.ts';

export interface PendingToCheck {
  readonly iteration: number;
  readonly ref: string;
  readonly commit: string;
  readonly document: DecisionDocument;
}

/** Why approve may promote it: the gate's record on this machine, or the approver's review of that very commit. */
export type PendingTrust = 'gate-record' | 'approver-review';

function decisionFacts(document: DecisionDocument): PendingDecisionFacts {
  const { gate } = document;
  return {
    iteration: document.iteration,
    blueprint: document.blueprint,
    outcome: document.outcome,
    release: document.release,
    hasApproval: document.approval !== null,
    policy: gate.policy,
    verdict: gate.verdict,
    layers: gate.layers.map((l) => ({ layer: l.layer, verdict: l.verdict })),
    failedChecks: [...gate.checks.filter((c) => !c.ok).map((c) => c.name), ...gate.layers.flatMap((l) => l.checks.filter((c) => !c.ok).map((c) => `${l.layer}: ${c.name}`))],
    f2p: gate.f2p,
    p2f: gate.p2f,
    hasIntent: document.intent !== null,
    efficiencyRelease: gate.efficiency?.promoted ?? false,
    recordedOutside: recordedOutsidePaths(document.change),
  };
}

async function gatherFacts(workspace: Workspace, pending: PendingToCheck, lineHead: string, vouchedFor: string | null): Promise<PendingFacts> {
  const { repo, config, store } = workspace;
  const recorded = pending.document.candidate;
  const parents = await repo.parents(pending.commit);
  const onCandidate = parents.length === 1 && parents[0] === recorded.commit;
  const candidateCommit = await repo.resolve(recorded.commit);
  const candidate =
    candidateCommit === recorded.commit
      ? {
          tree: await repo.treeOf(candidateCommit),
          parents: await repo.parents(candidateCommit),
          onLineHead: await repo.isAncestor(lineHead, candidateCommit),
          changed: (await repo.changedPaths(lineHead, candidateCommit)).map((c) => c.path),
          linksLeaving: await linksLeavingBlueprint(workspace, candidateCommit),
        }
      : null;
  const audit = auditRef(config, pending.iteration);
  // The store's decisions are written by the gate on this machine alone (a rebuild from git never writes one).
  const stored = store
    .decisions(config.blueprint)
    .filter((d) => d.iteration === pending.iteration && d.outcome === 'pending')
    .at(-1);
  const flipsPath = `${releaseFolder({ blueprint: config.blueprint, outcome: 'pending', release: null, iteration: pending.iteration })}/flips.json`;
  const flipsText = await repo.readFileAt(pending.commit, flipsPath);
  const flips = flipsText === null ? null : readFlipsDocument(flipsText, `${pending.ref}:${flipsPath}`);
  return {
    blueprint: config.blueprint,
    iteration: pending.iteration,
    pendingRef: pending.ref,
    pending: {
      commit: pending.commit,
      parents,
      changed: onCandidate ? (await repo.changedPaths(recorded.commit, pending.commit)).map((c) => c.path) : null,
    },
    recorded: { commit: recorded.commit, tree: recorded.tree, parent: recorded.parent },
    candidate,
    lineHead,
    auditRef: audit,
    auditCommit: await repo.refValue(audit),
    decision: decisionFacts(pending.document),
    flipsFile: flips ? { f2p: flips.f2p.map((r) => r.caseId), p2f: flips.p2f.map((r) => r.caseId) } : null,
    line: {
      nextRelease: tagName(config, (await currentRelease(repo, config, lineHead)).version + 1),
      maxRegressions: { flips: config.gate.maxP2F, stochastic: config.gate.maxSignificantRegressions },
      minFixes: config.gate.minF2P,
    },
    gateRecord: stored ? { candidate: stored.candidateCommit, pendingCommit: stored.recordedCommit } : null,
    vouchedFor,
  };
}

/**
 * Refuses a pending release that is not exactly what the gate decided on (the recorded
 * candidate, on the line's head, with the decision's report alone on top, a decision consistent
 * with the line), or that nothing here vouches the gate wrote: no record of it in this machine's
 * store and no `--trust-pending` naming it. Returns what it was trusted on. Nothing has moved
 * when it throws.
 */
export async function refuseUngatedPending(workspace: Workspace, pending: PendingToCheck, lineHead: string, vouchedFor: string | null): Promise<PendingTrust> {
  const facts = await gatherFacts(workspace, pending, lineHead, vouchedFor);
  const problems = pendingIntegrityProblems(facts);
  if (problems.length > 0) {
    throw new AgentdevelError('PENDING_NOT_GATED', `${pending.ref} is not the release candidate the gate accepted in iteration ${pending.iteration}: ${problems.join('; ')}; nothing was approved`, {
      hint: `See what the ref holds (git log --stat ${pending.ref}). Decline it (agentdevel decline ${pending.iteration} --reason "not what was gated") and gate the change again.`,
    });
  }
  const trust = pendingTrust(facts);
  if (trust !== null) return trust;
  throw new AgentdevelError(
    'PENDING_UNVERIFIED',
    `${pending.ref} (${pending.commit}) is consistent, but this workspace has no record of the gate holding it: its store did not record iteration ${pending.iteration}'s pending release (a fresh clone, another machine's gate, or a deleted .agentdevel/), and git alone cannot prove who wrote it; nothing was approved`,
    {
      hint:
        `Either gate the candidate here (agentdevel gate --candidate ${pending.document.candidate.commit} --promote: it is held for approval again, as a new iteration, with this machine's record), ` +
        `or review the pending commit (git show --stat ${pending.commit}, and its decision.json and report) and approve that very commit: agentdevel approve ${pending.iteration} --trust-pending ${pending.commit}`,
    },
  );
}
