import path from 'node:path';
import type { GateDecision } from '../../domain/decision.ts';
import type { Role } from '../../domain/ports/model.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { intentFromCommitMessage, type ChangeIntent } from '../../domain/release-candidate.ts';
import { outsideBlueprint } from '../../stages/synthesize/edits.ts';
import { candidateBranch, candidateDir, discardCandidate, linksLeavingBlueprint } from '../loop/candidate.ts';
import type { ReleaseEvidence } from '../../stages/release/artifacts.ts';
import { concludeCandidate } from './conclude.ts';
import { baselineRecordCount, recordBaseline, withCheckout, type RunContext } from '../run/execute-run.ts';
import { releaseTags } from '../workspace/line-history.ts';
import { currentRelease, nextIteration, tagName } from '../workspace/versions.ts';
import { lineTip, refuseDirtyTree } from '../workspace/workspace.ts';

export interface GateRequest {
  readonly ref: string;
  readonly promote: boolean;
  readonly targets: readonly string[];
  /** Where a dry gate writes its reports (null: none). */
  readonly reportDir: string | null;
  /** Gate a candidate cut before the current release as it is (a dry gate only). */
  readonly allowBehind: boolean;
  /** The change intent when the caller knows it (discover's proposal); otherwise --targets or the commit message. */
  readonly intent?: ChangeIntent | null;
  /** The model roles that wrote the candidate (discover's member writer); none for a person's change. */
  readonly authors?: readonly Role[];
}

export interface GateOutcome {
  readonly candidate: string;
  readonly commit: string;
  readonly decision: GateDecision;
  /** promoted / rejected when recorded on the line; accepted / rejected for a dry gate. */
  readonly outcome: 'promoted' | 'pending' | 'rejected' | 'accepted';
  readonly tag: string | null;
  readonly ranCandidate: boolean;
  readonly simulated: boolean;
  readonly mockRoles: readonly string[];
  readonly evidence: ReleaseEvidence;
  readonly reportFiles: readonly string[];
  /** The candidate's screening run, whose records are in the store (null when it was rejected before running). */
  readonly candidateRunId: string | null;
}

/** Gates an RC written by anyone (a person, another tool) against the current release. */
export async function gateCandidate(context: RunContext, request: GateRequest): Promise<GateOutcome> {
  const { workspace } = context;
  const { repo, config } = workspace;
  const commit = await repo.resolve(request.ref);
  if (!commit) throw new AgentdevelError('REF_NOT_FOUND', `--candidate: "${request.ref}" names no commit in ${workspace.root}`);
  const tip = await lineTip(workspace);
  if (commit === tip) throw new AgentdevelError('USAGE', `--candidate: "${request.ref}" is the current release itself; there is nothing to gate`);
  // What the candidate itself changes: against its fork point, so a branch cut from an earlier
  // release is not blamed for the release artifacts that came since.
  const forkPoint = (await repo.mergeBase(tip, commit)) ?? tip;
  const changed = await repo.changedPaths(forkPoint, commit);
  if (changed.length === 0) throw new AgentdevelError('USAGE', `--candidate: "${request.ref}" changes nothing relative to the current release`);
  const release = await currentRelease(repo, config, tip);
  if (request.promote) await refuseDirtyTree(workspace);
  if (!(await repo.isAncestor(tip, commit))) {
    if (request.promote) {
      throw new AgentdevelError('CANDIDATE_NOT_ON_RELEASE', `--candidate: "${request.ref}" is not based on the current release (${config.line.branch} at ${tip.slice(0, 10)})`);
    }
    // Cases fixed since the branch was cut would read as its regressions: say so before running anything.
    if (!request.allowBehind) {
      const base = await releaseAt(repo, config, forkPoint);
      throw new AgentdevelError('CANDIDATE_BEHIND', `--candidate: "${request.ref}" is based on ${base}, the current release is ${release.label}: rebase onto it`);
    }
  }
  const iteration = await nextIteration(repo, config);
  context.usageScope.iteration = request.promote ? iteration : null;
  // The intent: --targets, else a `Targets: a, b` line in the candidate's commit message.
  const intent: ChangeIntent | null =
    request.intent !== undefined
      ? request.intent
      : request.targets.length > 0
      ? { targets: [...request.targets], rationale: `targets given on the command line for ${request.ref}` }
      : intentFromCommitMessage((await repo.commitMessage(commit)) ?? '');

  const outside = [...outsideBlueprint(changed.map((c) => c.path), config.blueprint), ...(await linksLeavingBlueprint(workspace, commit))];
  const baseline = outside.length > 0 ? null : await withCheckout(workspace, tip, (source) => recordBaseline(context, source, release.label, baselineRecordCount(config)));

  const built = request.promote ? { branch: candidateBranch(config.blueprint, iteration), dir: candidateDir(workspace, iteration) } : null;
  if (built) {
    await discardCandidate(workspace, built);
    await repo.addWorktree(built.dir, commit, built.branch);
  }
  try {
    const conclude = (dir: string) =>
      concludeCandidate(context, {
        iteration,
        record: built !== null,
        candidate: { ref: request.ref, commit, dir },
        baseline: { commit: tip, label: release.label, screen: baseline },
        nextRelease: tagName(config, release.version + 1),
        intent,
        fingerprint: null,
        ...(request.authors ? { authors: request.authors } : {}),
        diagnosis: null,
        edits: changed,
        outside,
        changeBase: forkPoint,
        reportDir: request.reportDir === null ? null : path.join(request.reportDir, candidateReportFolder(request.ref, commit)),
      });
    const conclusion = built ? await conclude(built.dir) : await withCheckout(workspace, commit, (source) => conclude(source.dir));
    return {
      candidate: request.ref,
      commit,
      decision: conclusion.decision,
      outcome: conclusion.outcome,
      tag: conclusion.tag,
      ranCandidate: conclusion.evaluation !== null,
      simulated: conclusion.simulated,
      mockRoles: conclusion.mockRoles,
      evidence: conclusion.evidence,
      reportFiles: conclusion.reportFiles,
      candidateRunId: conclusion.evaluation?.candidateRun.runId ?? null,
    };
  } finally {
    if (built) await discardCandidate(workspace, built);
  }
}

/** The newest release a commit contains (its tag), or the line and short commit when it contains none. */
async function releaseAt(repo: RunContext['workspace']['repo'], config: RunContext['workspace']['config'], commit: string): Promise<string> {
  for (const { tag } of (await releaseTags(repo, config)).reverse()) {
    const tagged = await repo.resolve(tag);
    if (tagged && (await repo.isAncestor(tagged, commit))) return tag;
  }
  return `${config.line.branch}@${commit.slice(0, 10)} (before any release)`;
}

/**
 * The folder of one dry gate's reports under the report directory: one per candidate and commit
 * ("feature-x-1a2b3c4d5e"), so a second gate of another candidate never overwrites the first.
 */
export function candidateReportFolder(ref: string, commit: string): string {
  const slug = ref.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 60) || 'candidate';
  return `${slug}-${commit.slice(0, 10)}`;
}
