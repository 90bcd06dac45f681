// What to write for one gate decision, as data: changesets' assemble-release-plan. The pipeline
// gathers the facts (pipeline/gate/conclude.ts), this says what the outcome is and which files,
// commit, tag, refs and store row it takes, and one application (pipeline/gate/release.ts,
// `applyRelease`) writes it through the promotion journal.
import type { DecisionDocument, GateDecision, RecordedOutcome, ReleaseOutcome } from '../../domain/decision.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import { buildArtifacts, releaseCommitMessage, releaseFolder, tagMessage, type ArtifactFile, type ArtifactRendering, type LineHistory, type ReleaseEvidence } from './artifacts.ts';
import type { DecisionRow } from '../../domain/ports/record-store.ts';

/** The gate's decision, and what it is for. */
export interface ReleaseDecision {
  readonly gate: GateDecision;
  /** Record the decision in git (an iteration of the line); false for a dry gate, which records nothing. */
  readonly record: boolean;
  /** An accepted candidate waits for a person's approval (the approval layer). */
  readonly holdForApproval: boolean;
  /** The tag the candidate becomes if it is promoted (or held for approval). */
  readonly nextRelease: string;
}

/** Where a decision is written: the candidate's checkout, the line, and the refs of its iteration. */
export interface ReleaseTarget {
  /** A checkout of the candidate: a recorded decision's files are committed there, on top of it. */
  readonly candidateDir: string;
  /** The line's tip, which a promotion moves from. */
  readonly lineTip: string;
  readonly refs: {
    readonly line: string;
    readonly lineBranch: string;
    /** The iteration's audit ref: every recorded decision points it at its commit. */
    readonly audit: string;
    /** Where a release waits for approval. */
    readonly pending: string;
  };
  /** The line's earlier releases and the candidate's date: a promotion rewrites the line's index and CHANGELOG.md from them (null otherwise). */
  readonly history: LineHistory | null;
  /** Where a dry gate writes its reports (null: nowhere). */
  readonly reportDir: string | null;
}

/** Everything a decision's record rests on but the decision: gathered by the pipeline. */
export interface ReleaseFacts extends Omit<ReleaseEvidence, 'outcome' | 'release' | 'decision' | 'baseline' | 'candidateRunId'> {
  /** The release's side: its first record's run is null when nothing ran (the candidate was out of scope). */
  readonly baseline: Omit<ReleaseEvidence['baseline'], 'runId'> & { readonly runId: string | null };
  /** The candidate's screening run; null when it was not run. */
  readonly candidateRunId: string | null;
  readonly target: ReleaseTarget;
}

/** The decision's row in the store, as the pipeline writes it (`Store.saveDecision`). */
export interface DecisionEntry extends Omit<DecisionRow, 'id' | 'createdAt' | 'outcome' | 'intent'> {
  readonly outcome: ReleaseOutcome | 'no_candidate';
  readonly intent: ChangeIntent | null;
}

/** A commit of files on top of a checkout. */
export interface CommitPlan {
  readonly dir: string;
  readonly files: readonly ArtifactFile[];
  readonly message: string;
}

/** The refs a recorded decision (or a person's verdict on one) moves, all in one transaction. */
export interface RefPlan {
  /** The iteration's audit ref (among those below). */
  readonly auditRef: string;
  /** Refs set to the decision's commit, in this order. */
  readonly pointAtCommit: readonly string[];
  /** A promotion: the annotated tag on the commit and the line's move from `from`, with the audit ref, through the promotion journal. */
  readonly promotion: { readonly tag: string; readonly tagMessage: string; readonly line: string; readonly lineBranch: string; readonly from: string } | null;
  /** Refs removed in the same transaction, each only while it still has the value it was read at (a pending release's ref). */
  readonly remove: ReadonlyArray<{ readonly ref: string; readonly oldValue: string }>;
}

export type ReleaseWrite =
  /** A recorded decision: its files committed on the candidate, then its refs. */
  | { readonly kind: 'record'; readonly commit: CommitPlan; readonly refs: RefPlan }
  /** A dry gate's reports, written flat into `dir` (paths relative to it). */
  | { readonly kind: 'reports'; readonly dir: string; readonly files: readonly ArtifactFile[] }
  /** A dry gate without a report folder. */
  | { readonly kind: 'nothing' };

export interface ReleasePlan {
  readonly outcome: ReleaseOutcome;
  readonly evidence: ReleaseEvidence;
  readonly write: ReleaseWrite;
  /** The store's row, but for what only writing it to git tells (its tag, audit ref and commit: null here). */
  readonly row: DecisionEntry;
}

/** What became of the candidate: promoted, pending or rejected when recorded; accepted or rejected by a dry gate. */
export function releaseOutcome(decision: Pick<ReleaseDecision, 'gate' | 'record' | 'holdForApproval'>): ReleaseOutcome {
  const accepted = decision.gate.verdict === 'accept';
  if (!decision.record) return accepted ? 'accepted' : 'rejected';
  return accepted ? (decision.holdForApproval ? 'pending' : 'promoted') : 'rejected';
}

/** The plan of one decision: its outcome, the evidence the reports show, what to write, and its row. */
export function planRelease(decision: ReleaseDecision, facts: ReleaseFacts, rendering: ArtifactRendering): ReleasePlan {
  const outcome = releaseOutcome(decision);
  const { target, baseline, candidateRunId, ...rest } = facts;
  const evidence: ReleaseEvidence = {
    ...rest,
    outcome,
    release: outcome === 'promoted' || outcome === 'pending' ? decision.nextRelease : null,
    baseline: { ...baseline, runId: baseline.runId ?? '(not run)' },
    candidateRunId: candidateRunId ?? '(not run)',
    decision: decision.gate,
  };
  return {
    outcome,
    evidence,
    write: decision.record ? recordWrite(evidence, outcome as RecordedOutcome, target, rendering) : dryGateWrite(evidence, target, rendering),
    row: {
      blueprint: evidence.blueprint,
      iteration: decision.record ? evidence.iteration : null,
      candidateRef: evidence.candidate.ref,
      candidateCommit: evidence.candidate.commit,
      baselineRun: baseline.runId,
      candidateRun: candidateRunId,
      outcome,
      reasons: decision.gate.reasons,
      intent: evidence.intent,
      tag: null,
      auditRef: null,
      recordedCommit: null,
      f2p: decision.gate.f2p,
      p2f: decision.gate.p2f,
    },
  };
}

/**
 * What a recorded decision writes: its files committed on top of the candidate, then the refs of
 * its outcome. A promotion moves the line and adds the tag and the audit ref through the journal;
 * a pending release gets its pending ref and its audit ref; a rejection its audit ref alone.
 */
export function recordWrite(evidence: ReleaseEvidence, outcome: RecordedOutcome, target: ReleaseTarget, rendering: ArtifactRendering): ReleaseWrite {
  const files = buildArtifacts(evidence, rendering, outcome === 'promoted' ? target.history : null);
  const commit: CommitPlan = { dir: target.candidateDir, files, message: releaseCommitMessage(evidence) };
  const { refs } = target;
  const byOutcome: Record<RecordedOutcome, RefPlan> = {
    promoted: {
      auditRef: refs.audit,
      pointAtCommit: [],
      promotion: { tag: evidence.release ?? '', tagMessage: tagMessage(evidence), line: refs.line, lineBranch: refs.lineBranch, from: target.lineTip },
      remove: [],
    },
    pending: { auditRef: refs.audit, pointAtCommit: [refs.pending, refs.audit], promotion: null, remove: [] },
    rejected: { auditRef: refs.audit, pointAtCommit: [refs.audit], promotion: null, remove: [] },
  };
  return { kind: 'record', commit, refs: byOutcome[outcome] };
}

/** A dry gate's reports: the files a recorded decision would commit in its release folder (report.md, report.html, decision.json, flips.json, cases.json). */
function dryGateWrite(evidence: ReleaseEvidence, target: ReleaseTarget, rendering: ArtifactRendering): ReleaseWrite {
  if (target.reportDir === null) return { kind: 'nothing' };
  const folder = `${releaseFolder(evidence)}/`;
  const files = buildArtifacts(evidence, rendering)
    .filter((f) => f.path.startsWith(folder))
    .map((f) => ({ path: f.path.slice(folder.length), content: f.content }));
  return { kind: 'reports', dir: target.reportDir, files };
}

/**
 * The refs a person's verdict on a pending release moves: an approval promotes it (the line, its
 * tag and the audit ref, through the journal), a refusal moves the audit ref alone; either way the
 * pending ref goes in the same transaction.
 */
export function verdictRefs(
  verdict: 'approved' | 'declined',
  input: { readonly document: DecisionDocument; readonly pending: { readonly ref: string; readonly commit: string }; readonly lineTip: string; readonly refs: Omit<ReleaseTarget['refs'], 'pending'> },
): RefPlan {
  const { refs } = input;
  const remove = [{ ref: input.pending.ref, oldValue: input.pending.commit }];
  if (verdict === 'declined') return { auditRef: refs.audit, pointAtCommit: [refs.audit], promotion: null, remove };
  const tag = input.document.release ?? '';
  return {
    auditRef: refs.audit,
    pointAtCommit: [],
    promotion: { tag, tagMessage: tagMessage({ ...input.document, decision: input.document.gate }), line: refs.line, lineBranch: refs.lineBranch, from: input.lineTip },
    remove,
  };
}

/** The row of an iteration whose synthesizer made no valid release candidate. */
export function noCandidateEntry(input: { readonly blueprint: string; readonly iteration: number; readonly baselineRun: string; readonly reasons: string[] }): DecisionEntry {
  return {
    blueprint: input.blueprint,
    iteration: input.iteration,
    candidateRef: '(none)',
    candidateCommit: null,
    baselineRun: input.baselineRun,
    candidateRun: null,
    outcome: 'no_candidate',
    reasons: input.reasons,
    intent: null,
    tag: null,
    auditRef: null,
    recordedCommit: null,
    f2p: [],
    p2f: [],
  };
}
