// Approval promotes only what was gated. A pending ref is an ordinary ref: a fetch can move it
// forward, a person can point it anywhere, and whoever can push a ref can push any object with
// it (a commit, a tree, an annotated tag: none of git's objects is signed by the gate). So
// before `approve` moves the line, two questions are asked of the commit it would promote:
//
// 1. Is it consistent? Re-derived from git alone: the candidate commit and tree the decision
//    recorded, the line's head beneath it, edits inside the blueprint only (for a person's
//    change, beyond it exactly the paths its decision records as gated), nothing on top but
//    the decision's own report, and a decision that says what an accepted, pending decision of
//    this line says (the next release's name, a verdict its layers and flips bear out).
// 2. Did the gate write exactly this commit? Only something git does not carry can say so: this
//    machine's store, which the gate wrote at decision time (the pending commit's id, and so
//    every byte of its decision documents), or the approver, who reviewed the commit and names
//    its full id. Without either, approval is refused (`pendingTrust` returns null).
//
// Pure: the pipeline gathers the facts from git and the store (src/pipeline/workspace/pending-integrity.ts).
import { outsideBlueprint } from '../synthesize/edits.ts';
import { diagnosticsFolder, releaseFolder } from './artifacts.ts';

/** What the pending decision.json says, as far as its consistency is checked. */
export interface PendingDecisionFacts {
  readonly iteration: number;
  readonly blueprint: string;
  readonly outcome: string;
  readonly release: string | null;
  /** Whether it already records a person's verdict (a pending one never does). */
  readonly hasApproval: boolean;
  readonly policy: 'flips' | 'stochastic';
  readonly verdict: string;
  readonly layers: ReadonlyArray<{ readonly layer: string; readonly verdict: string }>;
  /** Checks of the decision and of its layers that did not hold ("layer: name"). */
  readonly failedChecks: readonly string[];
  readonly f2p: readonly string[];
  readonly p2f: readonly string[];
  readonly hasIntent: boolean;
  readonly efficiencyRelease: boolean;
  /**
   * The paths outside the blueprint folder the decision records as part of a person's gated
   * change (its task edits, the config, what it listed as not gated); none for a model's RC.
   */
  readonly recordedOutside: readonly string[];
}

export interface PendingFacts {
  readonly blueprint: string;
  readonly iteration: number;
  readonly pendingRef: string;
  /** The commit the pending ref points at now and its parents. */
  readonly pending: {
    readonly commit: string;
    readonly parents: readonly string[];
    /** What it changes against the recorded candidate; null when the candidate is not its only parent. */
    readonly changed: readonly string[] | null;
  };
  /** The candidate as the decision document recorded it (tree and parent null in documents written before they were recorded). */
  readonly recorded: { readonly commit: string; readonly tree: string | null; readonly parent: string | null };
  /** The recorded candidate commit as this repository holds it; null when it holds no such commit. */
  readonly candidate: {
    readonly tree: string;
    readonly parents: readonly string[];
    /** Whether the line's head (the release the candidate was gated against) is the candidate or beneath it. */
    readonly onLineHead: boolean;
    /** What it changes against the line's head. */
    readonly changed: readonly string[];
    /** Symbolic links in its blueprint folder that lead out of it ("path -> target"). */
    readonly linksLeaving: readonly string[];
  } | null;
  readonly lineHead: string;
  readonly auditRef: string;
  /** Where the iteration's audit ref points (written with the pending ref, in one transaction). */
  readonly auditCommit: string | null;
  /** The decision document of the pending commit. */
  readonly decision: PendingDecisionFacts;
  /** The case ids of the pending folder's flips.json; null when it has none. */
  readonly flipsFile: { readonly f2p: readonly string[]; readonly p2f: readonly string[] } | null;
  /** What the gate of this line would name the release and tolerate now (the line's config). */
  readonly line: { readonly nextRelease: string; readonly maxRegressions: Readonly<Record<'flips' | 'stochastic', number>>; readonly minFixes: number };
  /** What this machine's store recorded for the iteration's pending decision (the gate wrote it); null when it holds none. */
  readonly gateRecord: { readonly candidate: string | null; readonly pendingCommit: string | null } | null;
  /** The pending commit the approver vouched for (`--trust-pending`, a full commit id); null when none was named. */
  readonly vouchedFor: string | null;
}

const short = (sha: string | null | undefined): string => (sha ? sha.slice(0, 10) : 'none');

function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(', ');
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}

/** The paths the commit recording a pending decision may add on top of its candidate. */
export function pendingReportPaths(blueprint: string, iteration: number): { folders: string[]; files: string[] } {
  return {
    folders: [`${releaseFolder({ blueprint, outcome: 'pending', release: null, iteration })}/`, `${diagnosticsFolder(blueprint, iteration)}/`],
    files: [`releases/${blueprint}/index.html`],
  };
}

/** Everything that makes the pending commit something other than what the gate decided on, one line each; empty when it is exactly that. */
export function pendingIntegrityProblems(facts: PendingFacts): string[] {
  const problems: string[] = [];
  const { pending, recorded, candidate } = facts;
  if (pending.parents.length === 0) {
    problems.push(`${short(pending.commit)} has no parent: promoting it would drop the line's history`);
  } else if (pending.parents.length !== 1 || pending.parents[0] !== recorded.commit) {
    problems.push(`${short(pending.commit)} sits on ${pending.parents.map(short).join(' and ')}, not on the gated candidate ${short(recorded.commit)} alone`);
  }
  if (pending.changed !== null) {
    const allowed = pendingReportPaths(facts.blueprint, facts.iteration);
    const beyond = pending.changed.filter((p) => !allowed.files.includes(p) && !allowed.folders.some((f) => p.startsWith(f)));
    if (beyond.length > 0) problems.push(`on top of the gated candidate it changes ${listed(beyond)}, which no decision writes`);
  }
  if (candidate === null) {
    problems.push(`the gated candidate ${short(recorded.commit)} is not in this repository`);
  } else {
    if (recorded.tree !== null && candidate.tree !== recorded.tree) {
      problems.push(`the candidate's tree is ${short(candidate.tree)}, the gate saw ${short(recorded.tree)}`);
    }
    if (recorded.parent !== null && candidate.parents[0] !== recorded.parent) {
      problems.push(`the candidate's parent is ${short(candidate.parents[0])}, the gate saw ${short(recorded.parent)}`);
    }
    if (!candidate.onLineHead) problems.push(`the candidate is not built on the line's head ${short(facts.lineHead)}`);
    // Beyond its blueprint, a candidate may change exactly what its decision records of a person's change: no more, no less.
    const outside = outsideBlueprint(candidate.changed, facts.blueprint);
    const recordedOutside = facts.decision.recordedOutside;
    const unrecorded = outside.filter((p) => !recordedOutside.includes(p));
    if (unrecorded.length > 0) {
      problems.push(`the candidate changes ${listed(unrecorded)}, outside blueprints/${facts.blueprint}/${recordedOutside.length > 0 ? ', which its decision does not record as gated' : ''}`);
    }
    const unmade = recordedOutside.filter((p) => !outside.includes(p));
    if (unmade.length > 0) problems.push(`its decision records changes to ${listed(unmade)}, which the candidate does not make`);
    if (candidate.linksLeaving.length > 0) problems.push(`the candidate's blueprint links out of its folder: ${listed(candidate.linksLeaving)}`);
  }
  if (facts.auditCommit !== pending.commit) {
    problems.push(`${facts.auditRef}, written together with the pending ref, points at ${short(facts.auditCommit)}, not at ${short(pending.commit)}`);
  }
  problems.push(...decisionProblems(facts));
  const record = facts.gateRecord;
  if (record && record.candidate !== null && record.candidate !== recorded.commit) {
    problems.push(`this workspace's store recorded ${short(record.candidate)} as the candidate of iteration ${facts.iteration}, the pending decision names ${short(recorded.commit)}`);
  }
  if (record && record.pendingCommit !== null && record.pendingCommit !== pending.commit) {
    problems.push(`the gate on this machine held ${short(record.pendingCommit)} for approval in iteration ${facts.iteration}, the pending ref points at ${short(pending.commit)}`);
  }
  if (facts.vouchedFor !== null && facts.vouchedFor !== pending.commit) {
    problems.push(`--trust-pending names ${short(facts.vouchedFor)}, the pending ref points at ${short(pending.commit)}`);
  }
  return problems;
}

const sameIds = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().every((id, i) => id === [...b].sort()[i]);

/** Whether the pending decision says what an accepted decision of this line, held for approval, says. */
function decisionProblems(facts: PendingFacts): string[] {
  const { decision, line } = facts;
  const problems: string[] = [];
  if (decision.iteration !== facts.iteration) problems.push(`its decision is iteration ${decision.iteration}'s, the ref is iteration ${facts.iteration}'s`);
  if (decision.blueprint !== facts.blueprint) problems.push(`its decision is for the blueprint ${decision.blueprint}, not ${facts.blueprint}`);
  if (decision.outcome !== 'pending' || decision.hasApproval) problems.push(`its decision reads "${decision.outcome}"${decision.hasApproval ? ' with a verdict already' : ''}, not a pending release`);
  if (decision.release !== line.nextRelease) problems.push(`its decision names the release ${decision.release ?? 'none'}; the line's next release is ${line.nextRelease}`);
  const approval = decision.layers.at(-1);
  const others = decision.layers.slice(0, -1);
  if (decision.verdict !== 'accept' || approval?.layer !== 'approval' || approval.verdict !== 'pending' || others.some((l) => l.verdict !== 'pass' && l.verdict !== 'accept')) {
    problems.push(`its decision's verdict (${decision.verdict}; ${decision.layers.map((l) => `${l.layer} ${l.verdict}`).join(', ')}) is not an acceptance held for approval`);
  }
  if (decision.failedChecks.length > 0) problems.push(`its decision accepts with checks that failed: ${listed(decision.failedChecks)}`);
  const tolerated = line.maxRegressions[decision.policy];
  if (decision.p2f.length > tolerated) problems.push(`its decision accepts ${decision.p2f.length} regressions under gate.policy ${decision.policy}, which tolerates ${tolerated}`);
  if (decision.hasIntent && !decision.efficiencyRelease && decision.f2p.length < line.minFixes) {
    problems.push(`its decision accepts ${decision.f2p.length} fixes, gate.minF2P requires ${line.minFixes}`);
  }
  if (facts.flipsFile === null) problems.push('its report has no flips.json');
  else if (!sameIds(facts.flipsFile.f2p, decision.f2p) || !sameIds(facts.flipsFile.p2f, decision.p2f)) problems.push("its flips.json and its decision.json name different flips");
  return problems;
}

/**
 * Why `approve` may trust that the gate wrote this very pending commit: this machine's store
 * recorded it (the gate ran here), or the approver vouched for it by its full id. Null when
 * neither holds: approval is then refused. Asked only of a pending release without problems.
 */
export function pendingTrust(facts: Pick<PendingFacts, 'pending' | 'gateRecord' | 'vouchedFor'>): 'gate-record' | 'approver-review' | null {
  if (facts.gateRecord?.pendingCommit === facts.pending.commit) return 'gate-record';
  if (facts.vouchedFor === facts.pending.commit) return 'approver-review';
  return null;
}
