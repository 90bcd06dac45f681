import type { GateDecision, ReleaseOutcome } from '../../domain/decision.ts';
import type { Role } from '../../domain/ports/model.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { recordedVerdicts } from '../../domain/run-summary-document.ts';
import { decideCandidate } from '../../stages/gate/decide.ts';
import type { ReleaseEvidence } from '../../stages/release/artifacts.ts';
import { planRelease, type ReleaseDecision } from '../../stages/release/plan.ts';
import type { PipelineContext } from '../context.ts';
import type { CandidateEvaluation } from './evaluate-candidate.ts';
import { gatherGateEvidence } from './gate-evidence.ts';
import type { GateSubject } from './gate-subject.ts';
import { applyRelease } from './release.ts';
import { gatherReleaseFacts } from './release-facts.ts';

export type { GateSubject };

export interface GateConclusion {
  readonly decision: GateDecision;
  readonly evaluation: CandidateEvaluation | null;
  /** promoted / pending (awaiting approval) / rejected when recorded; accepted / rejected for a dry gate. */
  readonly outcome: ReleaseOutcome;
  readonly tag: string | null;
  readonly auditRef: string | null;
  readonly simulated: boolean;
  readonly mockRoles: readonly Role[];
  /** Everything the decision rests on, as the reports show it. */
  readonly evidence: ReleaseEvidence;
  /** The files a dry gate wrote to its report folder (absolute paths). */
  readonly reportFiles: readonly string[];
}

/**
 * The one tail every candidate goes through: gather the evidence (running the candidate and the
 * confirmation, or rejecting it on scope), decide, plan what to write for the outcome, and write
 * it (a promotion, a pending release or a recorded rejection in git; a dry gate's reports), the
 * store's row with it. `iterate` and `gate` differ only in the subject they hand in.
 */
export async function concludeCandidate(context: PipelineContext, subject: GateSubject): Promise<GateConclusion> {
  const gathered = await gatherGateEvidence(context, subject);
  const decision = decideCandidate(gathered.evidence, gathered.policy);
  for (const warning of decision.warnings) context.reporter.emit({ type: 'warning', message: warning });
  if (decision.verdict === 'undecided') {
    throw new AgentdevelError('GATE_UNDECIDED', `${subject.candidate.ref}: the gate cannot decide: ${decision.reasons.join('; ')}`);
  }
  const released: ReleaseDecision = { gate: decision, record: subject.record, holdForApproval: gathered.policy.approval, nextRelease: subject.nextRelease };
  const plan = planRelease(released, await gatherReleaseFacts(context, subject, gathered, released), { textDiff: context.textDiff, templates: context.templates });
  const { recorded, reportFiles } = await applyRelease(context.workspace, plan);
  const { evidence } = plan;
  // The line now records these runs' verdicts: later iterations of this command reuse them, as a
  // fresh clone of the line would (a rejected candidate's stay in its iteration: no clone holds them).
  if (plan.outcome === 'promoted' && evidence.record) context.workspace.store.keepLineVerdicts(recordedVerdicts(evidence.record.runs));
  return {
    decision,
    evaluation: gathered.evaluation,
    outcome: plan.outcome,
    tag: recorded?.tag ?? null,
    auditRef: recorded?.auditRef ?? null,
    simulated: evidence.simulated,
    mockRoles: evidence.mockRoles,
    evidence,
    reportFiles,
  };
}
