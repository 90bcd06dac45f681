import { AgentdevelError } from '../domain/errors.ts';
import type { ChangeIntent } from '../domain/release-candidate.ts';
import { scopeRejection, type GateDecision } from '../stages/gate/gate.ts';
import type { ReleaseEvidence } from '../stages/release/artifacts.ts';
import { outsideBlueprint } from '../stages/synthesize/edits.ts';
import { candidateBranch, candidateDir, discardCandidate } from './candidate.ts';
import { evaluateCandidate } from './evaluate-candidate.ts';
import { runVersion, withCheckout, type RunContext } from './execute-run.ts';
import { promote, recordRejection } from './release.ts';
import { currentRelease, nextIteration, tagName } from './versions.ts';
import { lineTip, refuseDirtyTree } from './workspace.ts';

export interface GateRequest {
  readonly ref: string;
  readonly promote: boolean;
  readonly targets: readonly string[];
}

export interface GateOutcome {
  readonly candidate: string;
  readonly commit: string;
  readonly decision: GateDecision;
  /** promoted / rejected when recorded on the line; accepted / rejected for a dry gate. */
  readonly outcome: 'promoted' | 'rejected' | 'accepted';
  readonly tag: string | null;
  readonly ranCandidate: boolean;
  readonly simulated: boolean;
}

/** Gates an RC written by anyone (a person, another tool) against the current release. */
export async function gateCandidate(context: RunContext, request: GateRequest): Promise<GateOutcome> {
  const { workspace } = context;
  const { repo, config, store } = workspace;
  const commit = await repo.resolve(request.ref);
  if (!commit) throw new AgentdevelError('REF_NOT_FOUND', `--candidate: "${request.ref}" names no commit in ${workspace.root}`);
  const tip = await lineTip(workspace);
  if (commit === tip) throw new AgentdevelError('USAGE', `--candidate: "${request.ref}" is the current release itself; there is nothing to gate`);
  // What the candidate itself changes: against its fork point, so a branch cut from an earlier
  // release is not blamed for the release artifacts that came since.
  const forkPoint = (await repo.mergeBase(tip, commit)) ?? tip;
  const changed = await repo.changedPaths(forkPoint, commit);
  if (changed.length === 0) throw new AgentdevelError('USAGE', `--candidate: "${request.ref}" changes nothing relative to the current release`);
  if (request.promote) {
    await refuseDirtyTree(workspace);
    if (!(await repo.isAncestor(tip, commit))) {
      throw new AgentdevelError('CANDIDATE_NOT_ON_RELEASE', `--candidate: "${request.ref}" is not based on the current release (${config.line.branch} at ${tip.slice(0, 10)})`);
    }
  }
  const release = await currentRelease(repo, config, tip);
  const iteration = await nextIteration(repo, config);
  context.usageScope.iteration = request.promote ? iteration : null;
  const intent: ChangeIntent | null =
    request.targets.length > 0 ? { targets: [...request.targets], rationale: `targets given on the command line for ${request.ref}` } : null;

  const outside = outsideBlueprint(changed.map((c) => c.path), config.blueprint);
  const baseline = outside.length > 0 ? null : await withCheckout(workspace, tip, (source) => runVersion(context, { source, split: 'train', trials: config.trials, purpose: 'baseline', label: release.label }));

  const built = request.promote ? { branch: candidateBranch(config.blueprint, iteration), dir: candidateDir(workspace, iteration) } : null;
  if (built) {
    await discardCandidate(workspace, built);
    await repo.addWorktree(built.dir, commit, built.branch);
  }
  try {
    const evaluate = async (dir: string) =>
      baseline
        ? evaluateCandidate(context, { baselineRun: baseline, baselineCommit: tip, candidate: { commit, dir }, label: request.ref, intent })
        : null;
    const evaluation = built ? await evaluate(built.dir) : await withCheckout(workspace, commit, (source) => evaluate(source.dir));
    const decision = evaluation?.decision ?? scopeRejection(outside, config.blueprint);
    if (decision.verdict === 'undecided') {
      throw new AgentdevelError('MODEL_UNAVAILABLE', `the gate cannot decide: ${decision.reasons.join('; ')}`);
    }
    const accepted = decision.verdict === 'accept';
    const simulated = (baseline?.simulated ?? false) || (evaluation?.candidateRun.simulated ?? false);
    let outcome: GateOutcome['outcome'] = accepted ? 'accepted' : 'rejected';
    let tag: string | null = null;
    let auditRef: string | null = null;
    if (built) {
      const evidence: ReleaseEvidence = {
        iteration,
        blueprint: config.blueprint,
        outcome: accepted ? 'promoted' : 'rejected',
        release: accepted ? tagName(config, release.version + 1) : null,
        candidate: { ref: request.ref, commit },
        baseline: { commit: tip, label: release.label, runId: baseline?.runId ?? '(not run)' },
        candidateRunId: evaluation?.candidateRun.runId ?? '(not run)',
        fingerprint: null,
        decision,
        intent,
        baselineCases: evaluation?.baselineCases ?? new Map(),
        candidateCases: evaluation?.candidateCases ?? new Map(),
        edits: changed,
        diagnosis: null,
        simulated,
        models: { ...config.models },
        costUsd: null,
      };
      const recorded = accepted ? await promote(workspace, built.dir, tip, evidence) : await recordRejection(workspace, built.dir, evidence);
      outcome = evidence.outcome;
      tag = recorded.tag;
      auditRef = recorded.auditRef;
    }
    store.saveDecision({
      blueprint: config.blueprint,
      iteration: built ? iteration : null,
      candidateRef: request.ref,
      candidateCommit: commit,
      baselineRun: baseline?.runId ?? null,
      candidateRun: evaluation?.candidateRun.runId ?? null,
      outcome,
      reasons: decision.reasons,
      intent,
      tag,
      auditRef,
      f2p: decision.f2p,
      p2f: decision.p2f,
    });
    return { candidate: request.ref, commit, decision, outcome, tag, ranCandidate: evaluation !== null, simulated };
  } finally {
    if (built) await discardCandidate(workspace, built);
  }
}
