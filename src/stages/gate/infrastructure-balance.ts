// A candidate cannot hide its own failures. An agent (a `command` agent above all) that reports
// the case-trials it fails as infrastructure errors takes them out of grading: ungraded trials
// are never a flip, and a case whose remaining trials pass reads as a pass. So every policy
// compares the two sides' infrastructure-error rates, per case and overall, and does not accept
// a candidate whose ungraded share is higher than the baseline's by more than the policy
// tolerates. Pure.
import type { GateCheck } from '../../domain/decision.ts';
import type { CaseSummary } from './flips.ts';
import { listed, pct } from './wording.ts';
import { fisherDropPValue, meets } from './significance.ts';

export interface InfrastructureTally {
  readonly errors: number;
  readonly attempts: number;
}

/** Infrastructure errors of each side, and the cases where the candidate's side had more of them. */
export interface InfrastructureEvidence {
  /** fresh: trials both sides ran together (two-stage confirmation); screening: the two screening runs. */
  readonly source: 'fresh' | 'screening';
  readonly baseline: InfrastructureTally;
  readonly candidate: InfrastructureTally;
  /** Cases the candidate's errors weigh on more than the baseline's (left ungradable on its side alone, or a larger share of errors). */
  readonly candidateBlocked: readonly string[];
}

/**
 * How an imbalance is judged. test: a one-sided Fisher test on the graded share of each side's
 * fresh trials at the level given (the statistical gate's own share of alpha). face_value: any
 * excess counts, as every flip counts under the paper-faithful gate (for deterministic agents,
 * which do not err at random).
 */
export type ImbalanceRule = { readonly kind: 'test'; readonly alpha: number } | { readonly kind: 'face_value' };

const errorShare = (c: CaseSummary): number => (c.trials === 0 ? 0 : (c.trials - c.graded) / c.trials);

/** The evidence of two screening runs: totals over every case-trial, and the cases whose error share is higher on the candidate's side. */
export function screeningInfrastructure(baseline: ReadonlyMap<string, CaseSummary>, candidate: ReadonlyMap<string, CaseSummary>): InfrastructureEvidence {
  const total = (cases: ReadonlyMap<string, CaseSummary>): InfrastructureTally => {
    let errors = 0;
    let attempts = 0;
    for (const c of cases.values()) {
      errors += c.trials - c.graded;
      attempts += c.trials;
    }
    return { errors, attempts };
  };
  const candidateBlocked = [...candidate.values()]
    .filter((after) => {
      const before = baseline.get(after.caseId);
      return before !== undefined && after.graded < after.trials && errorShare(after) > errorShare(before);
    })
    .map((c) => c.caseId)
    .sort();
  return { source: 'screening', baseline: total(baseline), candidate: total(candidate), candidateBlocked };
}

const share = (t: InfrastructureTally): number => (t.attempts === 0 ? 0 : t.errors / t.attempts);

/**
 * The infra_balance check; null when no case weighs more on the candidate (nothing to compare).
 * Failing, it rejects: the cases it names are the candidate's own failures, not missing evidence.
 */
export function infrastructureBalanceCheck(evidence: InfrastructureEvidence, rule: ImbalanceRule): GateCheck | null {
  if (evidence.candidateBlocked.length === 0) return null;
  const { baseline: b, candidate: c } = evidence;
  const counts = `${evidence.source === 'fresh' ? 'fresh trials' : 'screening case-trials'}: ${c.errors} of ${c.attempts} (${pct(share(c))}) against ${b.errors} of ${b.attempts} (${pct(share(b))})`;
  let imbalanced: boolean;
  let test: string;
  if (rule.kind === 'test') {
    const pValue = fisherDropPValue(b.attempts - b.errors, b.attempts, c.attempts - c.errors, c.attempts);
    imbalanced = meets(pValue, rule.alpha);
    test = `one-sided p = ${pValue.toPrecision(2)}; an imbalance at p ≤ ${Number(rule.alpha.toPrecision(3))}`;
  } else {
    imbalanced = share(c) > share(b);
    test = 'gate.policy "flips" takes every difference at face value';
  }
  const where = evidence.source === 'fresh' ? "where the baseline's, run beside them, did not" : "more often than the baseline's";
  return {
    name: 'infra_balance',
    ok: !imbalanced,
    cases: [...evidence.candidateBlocked],
    message:
      `the candidate's case-trials failed for infrastructure reasons ${where}${listed(evidence.candidateBlocked)} (${counts}; ${test})` +
      (imbalanced ? ': an agent that reports its failures as infrastructure errors is not accepted; if an outage caused them, run the gate again' : ''),
  };
}
