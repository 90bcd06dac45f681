import type { CaseRecord } from '../../domain/record.ts';

/** A case's outcome in one run: passing, failing, or not gradable (infra errors only). */
export type CaseOutcome = 'pass' | 'fail' | 'unknown';

export interface CaseSummary {
  readonly caseId: string;
  readonly passes: number;
  readonly graded: number;
  readonly outcome: CaseOutcome;
  /** The critic's label of a failing trial (the baseline symptom used for the hit rate). */
  readonly symptom: string | null;
  readonly description: string | null;
}

/**
 * Collapses a run's records to one outcome per case. With one trial this is the paper's
 * p(x); with several, a case passes when most graded trials pass (ties fail: a release must
 * not count a coin flip as working).
 */
export function summarizeCases(records: readonly CaseRecord[]): Map<string, CaseSummary> {
  const byCase = new Map<string, CaseRecord[]>();
  for (const record of records) {
    const list = byCase.get(record.caseId) ?? [];
    list.push(record);
    byCase.set(record.caseId, list);
  }
  const summaries = new Map<string, CaseSummary>();
  for (const [caseId, list] of byCase) {
    const graded = list.filter((r) => r.status === 'ok' && r.pass !== null);
    const passes = graded.filter((r) => r.pass).length;
    const outcome: CaseOutcome = graded.length === 0 ? 'unknown' : passes * 2 > graded.length ? 'pass' : 'fail';
    const failing = graded.find((r) => !r.pass);
    summaries.set(caseId, { caseId, passes, graded: graded.length, outcome, symptom: failing?.critic?.label ?? null, description: failing?.critic?.description ?? null });
  }
  return summaries;
}

export interface Flips {
  readonly p2f: string[];
  readonly f2p: string[];
  readonly p2p: string[];
  readonly f2f: string[];
  /** Cases without a gradable outcome on one side (infrastructure errors): never a flip. */
  readonly ungraded: string[];
  /** Cases present in only one of the two runs. */
  readonly unmatched: string[];
}

/** Example-level flips between the current release and the RC (paper eqs. 12-13). */
export function computeFlips(baseline: ReadonlyMap<string, CaseSummary>, candidate: ReadonlyMap<string, CaseSummary>): Flips {
  const flips: Flips = { p2f: [], f2p: [], p2p: [], f2f: [], ungraded: [], unmatched: [] };
  const ids = [...new Set([...baseline.keys(), ...candidate.keys()])].sort();
  for (const id of ids) {
    const before = baseline.get(id);
    const after = candidate.get(id);
    if (!before || !after) flips.unmatched.push(id);
    else if (before.outcome === 'unknown' || after.outcome === 'unknown') flips.ungraded.push(id);
    else if (before.outcome === 'pass') (after.outcome === 'pass' ? flips.p2p : flips.p2f).push(id);
    else (after.outcome === 'pass' ? flips.f2p : flips.f2f).push(id);
  }
  return flips;
}
