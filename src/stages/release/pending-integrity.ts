// Approval promotes only what was gated. A pending ref is an ordinary ref: a fetch can move it
// forward, a person can point it anywhere. So before `approve` moves the line, the commit it
// would promote is held against what the decision recorded at decision time: the candidate
// commit, its tree and its parent, with the line's head beneath it, edits inside the blueprint
// only, and nothing on top of it but the decision's own report. Pure: the pipeline gathers the
// facts from git (src/pipeline/workspace/pending-integrity.ts).
import { outsideBlueprint } from '../synthesize/edits.ts';
import { diagnosticsFolder, releaseFolder } from './artifacts.ts';

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
  /** The candidate commit this machine's store indexed for the iteration's decision; null when it has none. */
  readonly storedCandidate: string | null;
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
    const outside = outsideBlueprint(candidate.changed, facts.blueprint);
    if (outside.length > 0) problems.push(`the candidate changes ${listed(outside)}, outside blueprints/${facts.blueprint}/`);
    if (candidate.linksLeaving.length > 0) problems.push(`the candidate's blueprint links out of its folder: ${listed(candidate.linksLeaving)}`);
  }
  if (facts.auditCommit !== pending.commit) {
    problems.push(`${facts.auditRef}, written together with the pending ref, points at ${short(facts.auditCommit)}, not at ${short(pending.commit)}`);
  }
  if (facts.storedCandidate !== null && facts.storedCandidate !== recorded.commit) {
    problems.push(`this workspace's store recorded ${short(facts.storedCandidate)} as the candidate of iteration ${facts.iteration}, the pending decision names ${short(recorded.commit)}`);
  }
  return problems;
}
