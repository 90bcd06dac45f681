import path from 'node:path';
import type { GateDecision, ReleaseOutcome } from '../../domain/decision.ts';
import type { Role } from '../../domain/ports/model.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { intentFromCommitMessage, type ChangeIntent } from '../../domain/release-candidate.ts';
import { outsideBlueprint } from '../../stages/synthesize/edits.ts';
import { candidateBranch, candidateDir, discardCandidate, linksLeavingBlueprint } from '../loop/candidate.ts';
import type { ReleaseEvidence } from '../../stages/release/artifacts.ts';
import { concludeCandidate } from './conclude.ts';
import { withInferredEdits } from './inferred-edits.ts';
import { baselineRecordCount, recordBaseline } from '../run/execute-run.ts';
import { withCheckout } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';
import { releaseTags } from '../workspace/line-history.ts';
import { currentRelease, nextIteration, tagName } from '../workspace/versions.ts';
import { lineTip, refuseDirtyTree, refuseShallowHistory } from '../workspace/workspace.ts';
import { checkoutConfigDrift, scopeHumanChange, underLineConfig, withReleaseResults } from './human-change.ts';
import { CONFIG_PATH } from '../../stages/gate/change-scope.ts';
import { chargedTo } from '../run/usage-scope.ts';
import { refuseRecordEdits, testSplitChange } from './measuring-stick.ts';

export interface GateRequest {
  readonly ref: string;
  readonly promote: boolean;
  readonly targets: readonly string[];
  /** Where a dry gate writes its reports (null: none). */
  readonly reportDir: string | null;
  /** Gate a candidate cut before the current release as it is (a dry gate only). */
  readonly allowBehind: boolean;
  /**
   * Gate against this commit instead of the line's tip: for a change merged into the line without
   * a gate, the line as it was before the merge. Null: the current release.
   */
  readonly baseline?: string | null;
  /** The change intent when the caller knows it (discover's proposal); otherwise --targets or the commit message. */
  readonly intent?: ChangeIntent | null;
  /** The model roles that wrote the candidate (discover's member writer); none for a person's change. */
  readonly authors?: readonly Role[];
  /** Let a person's change to the sealed test split through (--reseal-test); otherwise it is refused before anything runs. */
  readonly resealTest?: boolean;
}

export interface GateOutcome {
  readonly candidate: string;
  readonly commit: string;
  readonly decision: GateDecision;
  /** promoted / rejected when recorded on the line; accepted / rejected for a dry gate. */
  readonly outcome: ReleaseOutcome;
  readonly tag: string | null;
  readonly ranCandidate: boolean;
  readonly simulated: boolean;
  readonly mockRoles: readonly string[];
  readonly evidence: ReleaseEvidence;
  readonly reportFiles: readonly string[];
  /** The candidate's screening run, whose records are in the store (null when it was rejected before running). */
  readonly candidateRunId: string | null;
}

/**
 * Gates an RC written by anyone (a person, another tool) against the current release. A
 * person's change is gated by kind of path (pipeline/gate/human-change.ts), under the line's
 * config; an RC a model wrote (`authors`) may edit its blueprint only.
 */
export async function gateCandidate(outer: PipelineContext, request: GateRequest): Promise<GateOutcome> {
  const { repo } = outer.workspace;
  if (request.promote) await refuseShallowHistory(outer.workspace, 'gate --promote');
  const commit = await repo.resolve(request.ref);
  if (!commit) throw new AgentdevelError('REF_NOT_FOUND', `--candidate: "${request.ref}" names no commit in ${outer.workspace.root}`);
  const line = await lineTip(outer.workspace);
  const tip = await baselineOf(outer, request, commit, line);
  // What the candidate itself changes: against its fork point, so a branch cut from an earlier
  // release is not blamed for the release artifacts that came since.
  const forkPoint = (await repo.mergeBase(tip, commit)) ?? tip;
  const changed = await repo.changedPaths(forkPoint, commit);
  if (changed.length === 0) throw new AgentdevelError('USAGE', `--candidate: "${request.ref}" changes nothing relative to ${request.baseline ? `--baseline "${request.baseline}"` : 'the current release'}`);
  const release = await currentRelease(repo, outer.workspace.config, tip);
  const byPerson = (request.authors?.length ?? 0) === 0;
  const context = byPerson ? await underLineConfig(outer, { commit: tip, label: release.label }) : outer;
  const { workspace } = context;
  const { config } = workspace;
  // The test split is sealed: a person's change to it stops here unless asked for, before anything is run or written.
  const testSplit = byPerson ? await testSplitChange(repo, config, { ref: request.ref, base: forkPoint, commit, reseal: request.resealTest === true }) : null;
  if (byPerson) refuseRecordEdits(config, request.ref, changed);
  if (request.promote) await refuseDirtyTree(workspace);
  if (!(await repo.isAncestor(line, commit))) {
    if (request.promote) {
      throw new AgentdevelError('CANDIDATE_NOT_ON_RELEASE', `--candidate: "${request.ref}" is not based on the current release (${config.line.branch} at ${line.slice(0, 10)})`);
    }
    // Cases fixed since the branch was cut would read as its regressions: say so before running
    // anything (a baseline named with --baseline was chosen on purpose).
    if (!request.allowBehind && !request.baseline) {
      const base = await releaseAt(repo, config, forkPoint);
      throw new AgentdevelError('CANDIDATE_BEHIND', `--candidate: "${request.ref}" is based on ${base}, the current release is ${release.label}: rebase onto it`);
    }
  }
  const iteration = await nextIteration(repo, config);
  // A promotion's model calls are charged to its iteration; a check's to none.
  return chargedTo({ iteration: request.promote ? iteration : null }, async () => {
    // The intent: the caller's (discover's proposal), else the commit message with --targets or its `Targets:` line.
    const stated = request.intent !== undefined ? request.intent : intentOf(request, await candidateMessage(repo, commit));
    // A person types no edits: the intent carries the types the diff shows, marked inferred.
    const intent = await withInferredEdits(workspace, stated, { base: forkPoint, commit, changed });

    const scope = byPerson
      ? await scopeHumanChange(context, { ref: request.ref, commit, changeBase: forkPoint, changed, release: { commit: tip, label: release.label }, testSplit })
      : {
          outside: [...outsideBlueprint(changed.map((c) => c.path), config.blueprint), ...(await linksLeavingBlueprint(workspace, commit))],
          baseline: { commit: tip, label: release.label, onCandidateTask: false },
          change: null,
        };
    const drift = checkoutConfigDrift(outer, context);
    if (drift.length > 0 && !scope.change?.config) {
      context.reporter.emit({ type: 'warning', message: `the checkout's ${CONFIG_PATH} differs from the line's (at ${release.label}) in ${drift.join(', ')}; the gate runs under the line's: commit the change to gate it` });
    }
    const { outside } = scope;
    const baseline = outside.length > 0 ? null : await withCheckout(workspace, scope.baseline.commit, (source) => recordBaseline(context, source, scope.baseline.label, baselineRecordCount(config)));
    const change = withReleaseResults(scope.change, baseline);

    const built = request.promote ? { branch: candidateBranch(config, iteration), dir: candidateDir(workspace, iteration) } : null;
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
          baseline: { commit: tip, label: scope.baseline.label, screen: baseline, measuredOn: scope.baseline.onCandidateTask ? scope.baseline.commit : null },
          lineTip: line,
          nextRelease: tagName(config, release.version + 1),
          intent,
          fingerprint: null,
          ...(request.authors ? { authors: request.authors } : {}),
          diagnosis: null,
          edits: changed,
          outside,
          change,
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
  });
}

/**
 * What the candidate is gated against: the line's tip (the current release) for a change made on
 * it; for the tip itself, holding changes merged into the line without a gate, the newest release
 * it contains (before any release, its first parent: the line before the merge); or the commit
 * --baseline names.
 */
async function baselineOf(context: PipelineContext, request: GateRequest, commit: string, line: string): Promise<string> {
  const { repo, config } = context.workspace;
  if (!request.baseline && commit !== line) return line;
  const releases = [];
  for (const { tag } of await releaseTags(repo, config)) releases.push({ tag, commit: await repo.resolve(tag) });
  const released = releases.find((r) => r.commit === commit);
  if (released) throw new AgentdevelError('USAGE', `--candidate: "${request.ref}" is release ${released.tag} already; there is nothing to gate`);
  if (request.baseline) return namedBaseline(context, request, commit, line);
  for (const { commit: tagged } of releases.reverse()) if (tagged && (await repo.isAncestor(tagged, commit))) return tagged;
  // No release yet: the line before the merge is the tip's first parent.
  const [before] = await repo.parents(commit);
  if (before) return before;
  throw new AgentdevelError('USAGE', `--candidate: "${request.ref}" is the first commit of ${config.line.branch}; there is nothing to gate it against`);
}

/** The commit --baseline names, checked: the candidate contains it, and a promotion needs it on the line the candidate joins. */
async function namedBaseline(context: PipelineContext, request: GateRequest, commit: string, line: string): Promise<string> {
  const { repo, config, root } = context.workspace;
  const name = request.baseline as string;
  const baseline = await repo.resolve(name);
  if (!baseline) throw new AgentdevelError('REF_NOT_FOUND', `--baseline: "${name}" names no commit in ${root}`);
  if (baseline === commit) throw new AgentdevelError('USAGE', `--baseline: "${name}" is the candidate itself; there is nothing to gate`);
  if (!(await repo.isAncestor(baseline, commit))) {
    throw new AgentdevelError('USAGE', `--baseline: "${name}" is not an ancestor of --candidate "${request.ref}"; the gate compares a change with what it was made on`);
  }
  if (request.promote && !(await repo.isAncestor(baseline, line))) {
    throw new AgentdevelError('USAGE', `--baseline: "${name}" is not on the line (${config.line.branch}); a promotion gates a change against the line it joins`);
  }
  return baseline;
}

/**
 * The candidate's intent: its commit message (subject and body) is the rationale, and the targets
 * are --targets, else a `Targets: a, b` line of that message (none: the flips alone decide).
 */
export function intentOf(request: Pick<GateRequest, 'ref' | 'targets'>, message: string): ChangeIntent | null {
  const stated = intentFromCommitMessage(message);
  if (request.targets.length === 0) return stated;
  return { targets: [...request.targets], rationale: stated?.rationale ?? `targets given on the command line for ${request.ref}` };
}

/** How far back a merge's own commits are read for its intent: a pull request's, not a history's. */
const MERGED_COMMITS_READ = 50;

/**
 * The message a candidate's intent is read from. A merge's own message rarely says why: CI checks
 * out a pull request as GitHub's test merge ("Merge <sha> into <sha>"), and a merged pull request
 * reads "Merge pull request #N …". So for a merge, the commits it brings in (newest first, up to
 * MERGED_COMMITS_READ) speak too: the newest one's message is the rationale in place of an
 * automatic merge message, and the newest `Targets:` line among them counts when the merge
 * message has none.
 */
export async function candidateMessage(repo: PipelineContext['workspace']['repo'], commit: string): Promise<string> {
  const message = (await repo.commitMessage(commit)) ?? '';
  const parents = await repo.parents(commit);
  if (parents.length !== 2) return message;
  const [base, head] = parents as [string, string];
  const merged: string[] = [];
  for (let at: string | undefined = head; at && merged.length < MERGED_COMMITS_READ && !(await repo.isAncestor(at, base)); at = (await repo.parents(at))[0]) {
    merged.push((await repo.commitMessage(at)) ?? '');
  }
  if (merged.length === 0) return message;
  const automatic = /^Merge [0-9a-f]{7,64} into [0-9a-f]{7,64}\s*$/.test(message.trim());
  const rationale = automatic ? (merged[0] as string) : message;
  const hasTargets = (text: string) => /^targets:\s*\S/im.test(text);
  if (hasTargets(rationale)) return rationale;
  const targets = merged.flatMap((text) => text.split(/\r?\n/)).find((line) => /^targets:\s*\S/i.test(line.trim()));
  return targets ? `${rationale.trimEnd()}\n\n${targets.trim()}\n` : rationale;
}

/** The newest release a commit contains (its tag), or the line and short commit when it contains none. */
async function releaseAt(repo: PipelineContext['workspace']['repo'], config: PipelineContext['workspace']['config'], commit: string): Promise<string> {
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
