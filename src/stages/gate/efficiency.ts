// The composite score (CodeCrew's weighted sum of sub-scores) and the efficiency release. The
// composite never gates: it is reported per release, and it breaks one kind of tie only, an RC
// that fixes and breaks nothing, whose per-case score must then be significantly better on the
// same cases (an exact paired sign test) for the RC to be promoted on efficiency.
import type { CaseRecord } from '../../domain/record.ts';
import { signTestOneSided } from './significance.ts';

export type CompositeWeights = Readonly<Record<string, number>>;

/** Sub-scores of one case (or of a whole run): each in [0, 1], higher is better. */
export interface SubScores {
  /** Share of graded trials that passed (pass^1 over a run). */
  readonly passRate: number;
  /** 1 / (1 + mean trace cost): 1 for a free trajectory, towards 0 as it gets expensive. */
  readonly efficiency: number | null;
  /** Mean value (or pass share) of each named scorer's checks. */
  readonly scorers: Readonly<Record<string, number>>;
}

export function efficiencyOf(cost: number): number {
  return 1 / (1 + cost);
}

/** Σ w·s / Σ w over the sub-scores the weights name; a sub-score the run lacks counts 0. */
export function composite(weights: CompositeWeights, scores: SubScores): number {
  let sum = 0;
  let total = 0;
  for (const [name, weight] of Object.entries(weights)) {
    const value = name === 'passRate' ? scores.passRate : name === 'efficiency' ? (scores.efficiency ?? 0) : (scores.scorers[name.slice('scorer:'.length)] ?? 0);
    sum += weight * value;
    total += weight;
  }
  return total === 0 ? 0 : sum / total;
}

/** Per-case sub-scores from a run's records and (optionally) per-case trace costs. */
export function caseSubScores(records: readonly CaseRecord[], costs: ReadonlyMap<string, number> | null): Map<string, SubScores> {
  const byCase = new Map<string, CaseRecord[]>();
  for (const record of records) if (record.status === 'ok' && record.pass !== null) byCase.set(record.caseId, [...(byCase.get(record.caseId) ?? []), record]);
  const out = new Map<string, SubScores>();
  for (const [caseId, list] of byCase) {
    const scorers: Record<string, number[]> = {};
    for (const record of list) {
      for (const check of record.scorer?.checks ?? []) (scorers[check.scorer] ??= []).push(check.value ?? (check.pass ? 1 : 0));
    }
    const cost = costs?.get(caseId);
    out.set(caseId, {
      passRate: list.filter((r) => r.pass).length / list.length,
      efficiency: cost === undefined ? null : efficiencyOf(cost),
      scorers: Object.fromEntries(Object.entries(scorers).map(([name, values]) => [name, values.reduce((a, b) => a + b, 0) / values.length])),
    });
  }
  return out;
}

/** The mean of the cases' sub-scores: one SubScores for the run. */
export function runSubScores(cases: ReadonlyMap<string, SubScores>): SubScores {
  const list = [...cases.values()];
  const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const efficiencies = list.map((s) => s.efficiency).filter((e): e is number => e !== null);
  const names = [...new Set(list.flatMap((s) => Object.keys(s.scorers)))];
  return {
    passRate: mean(list.map((s) => s.passRate)),
    efficiency: efficiencies.length === 0 ? null : mean(efficiencies),
    scorers: Object.fromEntries(names.map((n) => [n, mean(list.flatMap((s) => (s.scorers[n] === undefined ? [] : [s.scorers[n] as number])))])),
  };
}

/**
 * Is the candidate better case by case? Each case's score (the composite, or lower cost) is
 * compared on the same cases; under no difference each differing case is as likely to go
 * either way, so the one-sided sign test over them is exact.
 */
export function pairedImprovement(baseline: ReadonlyMap<string, number>, candidate: ReadonlyMap<string, number>): { better: number; worse: number; pValue: number } {
  let better = 0;
  let worse = 0;
  for (const [caseId, before] of baseline) {
    const after = candidate.get(caseId);
    if (after === undefined) continue;
    if (after > before + 1e-12) better += 1;
    else if (after < before - 1e-12) worse += 1;
  }
  return { better, worse, pValue: signTestOneSided(better, worse) };
}
