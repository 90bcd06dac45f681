import type { CaseSummary } from '../../domain/case-summary.ts';

export { summarizeCases, type CaseOutcome, type CaseSummary } from '../../domain/case-summary.ts';

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
