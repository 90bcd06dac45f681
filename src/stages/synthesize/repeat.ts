import { affectedCases, type DiagnosisReport } from '../../domain/diagnosis.ts';
import type { RcHistoryEntry } from '../../domain/ports/model.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
};

/**
 * Why edits already tried may not be proposed again, or null when they may. Edits that were
 * released are in the line already. Edits that were rejected may come back once what made
 * them fail changed: they target other symptoms, or the diagnosis now puts other cases under
 * their targets (their scope).
 */
export function repeatProblem(fingerprint: string, intent: ChangeIntent, diagnosis: DiagnosisReport, history: readonly RcHistoryEntry[]): string | null {
  const earlier = history.filter((entry) => entry.fingerprint === fingerprint);
  const released = earlier.find((entry) => entry.decision === 'promoted');
  if (released) return `these exact edits were already released in iteration ${released.iteration}`;
  const scope = affectedCases(diagnosis, intent.targets);
  const unchanged = earlier.find((entry) => (entry.decision === 'rejected' || entry.decision === 'declined') && sameSet(entry.targets, intent.targets) && sameSet(entry.scope, scope));
  if (!unchanged) return null;
  return (
    `these exact edits were rejected in iteration ${unchanged.iteration} with the same targets (${intent.targets.join(', ')}) and the same cases in scope; ` +
    `the gate said: ${unchanged.reasons.join(' | ') || 'no reasons recorded'}. Change what made them fail, or target the symptoms they really fix`
  );
}
