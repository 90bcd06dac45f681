// The reason first, everywhere. Every output of a decision (the CLI, --json, the PR summary,
// report.md, report.html, JUnit's properties) opens with the same headline: what was decided,
// then the reasons that caused it, each naming its layer, and for a case its expected against
// actual. One function writes those words, so they are the same in every output.
import type { CaseEvidenceDocument } from '../../domain/case-evidence.ts';
import type { DecisionDocument, GateDecision } from '../../domain/decision.ts';
import { flipReasons } from './case-reasons.ts';

export interface HeadlineSubject {
  readonly outcome: DecisionDocument['outcome'];
  readonly release: string | null;
  readonly iteration: number | null;
  readonly candidate: { readonly ref: string };
  readonly gate: GateDecision;
  readonly approval?: DecisionDocument['approval'];
}

export interface DecisionHeadline {
  /** "rejected", "promoted as support-agent/v2", "accepted (dry gate: nothing recorded)", … */
  readonly outcome: string;
  /** True when the candidate did not pass (rejected or declined): the outputs mark it red. */
  readonly failed: boolean;
  /** Why, in order: the vetoes, the statistical gate, the person. Each line names its layer. */
  readonly reasons: readonly string[];
}

function outcomeText(subject: HeadlineSubject): string {
  switch (subject.outcome) {
    case 'promoted':
      return subject.release ? `promoted as ${subject.release}` : 'promoted';
    case 'pending':
      return subject.release ? `accepted, awaiting approval to become ${subject.release}` : 'accepted, awaiting approval';
    case 'accepted':
      return 'accepted (dry gate: nothing recorded)';
    case 'rejected':
      return 'rejected';
    case 'declined':
      return 'declined';
    default: {
      const exhaustive: never = subject.outcome;
      return exhaustive;
    }
  }
}

/** The decision and the reasons that caused it, in the words every output uses. */
export function decisionHeadline(subject: HeadlineSubject, evidence: CaseEvidenceDocument | null): DecisionHeadline {
  const { gate } = subject;
  const why = flipReasons(evidence);
  const reasons: string[] = [];
  const rejected = gate.verdict !== 'accept';
  for (const layer of gate.layers) {
    if (layer.layer === 'approval') continue;
    const blocking = layer.verdict === 'veto' || layer.verdict === 'reject' || layer.verdict === 'undecided';
    if (rejected && blocking) {
      for (const check of layer.checks.filter((c) => !c.ok)) reasons.push(`${layer.layer} layer: ${check.message}`);
    }
  }
  // Regressions, each with what failed: the statistical layer names them, this says why.
  for (const id of gate.p2f) reasons.push(`flips layer: regression ${id}${why.get(id) ? `: ${why.get(id)}` : ''}`);
  if (!rejected) {
    const flips = gate.layers.find((l) => l.layer === 'flips');
    const accepted = (flips?.checks ?? gate.checks).filter((c) => c.ok && c.name !== 'graded');
    for (const check of accepted) reasons.push(`flips layer: ${check.message}`);
  }
  if (reasons.length === 0) reasons.push(...gate.reasons.map((r) => (/^\w+ layer: /.test(r) ? r : `flips layer: ${r}`)));
  const approval = subject.approval;
  if (approval) {
    reasons.unshift(
      approval.verdict === 'approved' ? `approval layer: approved by ${approval.by} on ${approval.at.slice(0, 10)}` : `approval layer: declined by ${approval.by} on ${approval.at.slice(0, 10)}: ${approval.reason ?? ''}`,
    );
  } else if (subject.outcome === 'pending') {
    reasons.unshift(`approval layer: waits for a person: \`agentdevel approve ${subject.iteration ?? 'N'}\` or \`agentdevel decline ${subject.iteration ?? 'N'} --reason …\``);
  }
  return { outcome: outcomeText(subject), failed: subject.outcome === 'rejected' || subject.outcome === 'declined', reasons };
}
