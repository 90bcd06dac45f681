import type { CaseEvidenceDocument } from '../../domain/case-evidence.ts';
import type { CaseSummary } from '../../domain/case-summary.ts';
import { trialReason, type CaseRecord } from '../../domain/record.ts';

/** One case of a run that did not pass every trial, with the reason of its first bad trial. */
export interface CaseReason {
  readonly caseId: string;
  readonly passes: number;
  readonly graded: number;
  readonly infraErrors: number;
  /** The first bad trial's reason: the scorer's check (expected against actual), the critic's label, the agent's error. */
  readonly reason: string;
}

/** Why one case-trial failed, in one line (see trialReason). */
export const recordReason = (record: CaseRecord): string => trialReason(record);

/**
 * The cases with a failing or ungraded trial, each with the reason of its first such trial, by
 * case id. The records are read once, as a stream: only one record per failing case is kept.
 */
export function failingCases(records: Iterable<CaseRecord>): CaseReason[] {
  const byCase = new Map<string, { passes: number; graded: number; infraErrors: number; failed: CaseRecord | null; infra: CaseRecord | null }>();
  for (const record of records) {
    const entry = byCase.get(record.caseId) ?? { passes: 0, graded: 0, infraErrors: 0, failed: null, infra: null };
    if (record.pass === null) entry.infraErrors += 1;
    else entry.graded += 1;
    if (record.pass === true) entry.passes += 1;
    if (record.pass === false) entry.failed ??= record;
    if (record.status === 'infra_error') entry.infra ??= record;
    byCase.set(record.caseId, entry);
  }
  const reasons: CaseReason[] = [];
  for (const [caseId, entry] of byCase) {
    const bad = entry.failed ?? entry.infra;
    if (!bad) continue;
    reasons.push({ caseId, passes: entry.passes, graded: entry.graded, infraErrors: entry.infraErrors, reason: recordReason(bad) });
  }
  // Only the failing cases are sorted: sorting every case of a 100,000-case run by localeCompare
  // was the one part of `run` that grew faster than the run.
  return reasons.sort((a, b) => a.caseId.localeCompare(b.caseId));
}

/**
 * The same list from a run's per-case counts and only its records that are not clean passes
 * (`eachRecord(run, { notable: true })`, in case and trial order): what `run` prints at its end
 * without reading back every record of a large run. A case without a summary is counted from
 * its records alone.
 */
export function failingCasesFrom(notable: Iterable<CaseRecord>, cases: ReadonlyMap<string, CaseSummary>): CaseReason[] {
  const bad = new Map<string, { failed: CaseRecord | null; infra: CaseRecord | null; passes: number; graded: number; infraErrors: number }>();
  for (const record of notable) {
    if (record.pass === true) continue;
    const entry = bad.get(record.caseId) ?? { failed: null, infra: null, passes: 0, graded: 0, infraErrors: 0 };
    if (record.pass === false) {
      entry.failed ??= record;
      entry.graded += 1;
    } else entry.infraErrors += 1;
    if (record.status === 'infra_error') entry.infra ??= record;
    bad.set(record.caseId, entry);
  }
  const reasons: CaseReason[] = [];
  for (const [caseId, entry] of bad) {
    const first = entry.failed ?? entry.infra;
    if (!first) continue;
    const summary = cases.get(caseId);
    const counts = summary
      ? { passes: summary.passes, graded: summary.graded, infraErrors: summary.trials - summary.graded }
      : { passes: entry.passes, graded: entry.graded, infraErrors: entry.infraErrors };
    reasons.push({ caseId, ...counts, reason: recordReason(first) });
  }
  return reasons.sort((a, b) => a.caseId.localeCompare(b.caseId));
}

/** The reason of the first failing trial of a case in a run, or null when every trial passed. */
export function reasonOf(records: readonly CaseRecord[], caseId: string): string | null {
  const bad = records.find((r) => r.caseId === caseId && r.pass === false) ?? records.find((r) => r.caseId === caseId && r.status === 'infra_error');
  return bad ? recordReason(bad) : null;
}

/** Why each named case flipped: the candidate's failure for a regression (or a move), the baseline's ("was: …") for a fix. */
export function flipReasons(evidence: CaseEvidenceDocument | null): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const c of evidence?.cases ?? []) {
    const failing = c.kind === 'fix' ? c.baseline.shown : c.candidate.shown;
    if (failing) reasons.set(c.caseId, c.kind === 'fix' ? `was: ${failing.reason}` : failing.reason);
  }
  return reasons;
}
