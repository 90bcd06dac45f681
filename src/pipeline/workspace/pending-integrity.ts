// Gathers from git (and this workspace's store) what `approve` holds a pending release against,
// and refuses one that is not exactly what the gate decided on. The rules are pure
// (src/stages/release/pending-integrity.ts).
import type { DecisionDocument } from '../../domain/decision.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { pendingIntegrityProblems, type PendingFacts } from '../../stages/release/pending-integrity.ts';
import { linksLeavingBlueprint } from '../loop/candidate.ts';
import { auditRef } from './versions.ts';
import type { Workspace } from './workspace.ts';

export interface PendingToCheck {
  readonly iteration: number;
  readonly ref: string;
  readonly commit: string;
  readonly document: DecisionDocument;
}

async function gatherFacts(workspace: Workspace, pending: PendingToCheck, lineHead: string): Promise<PendingFacts> {
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
  const stored = store
    .decisions(config.blueprint)
    .filter((d) => d.iteration === pending.iteration && d.outcome === 'pending')
    .at(-1);
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
    storedCandidate: stored?.candidateCommit ?? null,
  };
}

/**
 * Refuses a pending release that is not exactly what the gate decided on (the recorded
 * candidate, on the line's head, with the decision's report alone on top). Nothing has moved
 * when it throws.
 */
export async function refuseUngatedPending(workspace: Workspace, pending: PendingToCheck, lineHead: string): Promise<void> {
  const problems = pendingIntegrityProblems(await gatherFacts(workspace, pending, lineHead));
  if (problems.length === 0) return;
  throw new AgentdevelError('PENDING_NOT_GATED', `${pending.ref} is not the release candidate the gate accepted in iteration ${pending.iteration}: ${problems.join('; ')}; nothing was approved`, {
    hint: `See what the ref holds (git log --stat ${pending.ref}). Decline it (agentdevel decline ${pending.iteration} --reason "not what was gated") and gate the change again.`,
  });
}
