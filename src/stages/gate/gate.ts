import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { CaseSummary, Flips } from './flips.ts';
import { signTestOneSided } from './significance.ts';

export interface GatePolicy {
  readonly maxP2F: number;
  readonly maxP2FRate: number;
  readonly minF2P: number;
  readonly minHitRate: number;
  /** Most share of cases that may be ungraded (infrastructure errors) for a decision to stand. */
  readonly maxUngradedShare: number;
}

export type GateVerdict = 'accept' | 'reject' | 'undecided';
export type GatePolicyKind = 'flips' | 'stochastic';

export interface GateCheck {
  readonly name: 'scope' | 'regressions' | 'regression_rate' | 'fixes' | 'hit_rate' | 'graded' | 'significant_regressions' | 'paired_test';
  readonly ok: boolean;
  readonly message: string;
}

export interface GateDecision {
  readonly policy: GatePolicyKind;
  readonly verdict: GateVerdict;
  readonly checks: GateCheck[];
  readonly reasons: string[];
  /** Pass→fail regressions: every such flip (paper policy), or the consistent ones (stochastic policy). */
  readonly p2f: string[];
  readonly f2p: string[];
  /** Cases that vary within a version (here or in the history) and whose pass rate changed. */
  readonly flaky: string[];
  /** The regressions and fixes the evidence supports (see the stochastic policy). */
  readonly significant: { readonly regressions: string[]; readonly fixes: string[] };
  /** One-sided exact sign test (McNemar) over discordant cases: evidence of regression. */
  readonly pValue: number;
  readonly p2fRate: number;
  readonly f2pRate: number;
  readonly hitRate: number | null;
  readonly baselinePassRate: number;
  readonly candidatePassRate: number;
}

const EPSILON = 1e-9;

export function passRate(cases: ReadonlyMap<string, CaseSummary>): number {
  const graded = [...cases.values()].filter((c) => c.outcome !== 'unknown');
  return graded.length === 0 ? 0 : graded.filter((c) => c.outcome === 'pass').length / graded.length;
}

export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * The paper-faithful flip gate (section 2.4): regressions are release accidents, fixes are the
 * evidence, and fixes must land on the symptoms the change intent targets. Pure: the same
 * flips and policy always give the same decision and reasons.
 */
export function decideGate(input: {
  readonly policy: GatePolicy;
  readonly flips: Flips;
  readonly baseline: ReadonlyMap<string, CaseSummary>;
  readonly candidate: ReadonlyMap<string, CaseSummary>;
  readonly intent: ChangeIntent | null;
}): GateDecision {
  const { policy, flips, baseline, candidate, intent } = input;
  const basePassing = [...baseline.values()].filter((c) => c.outcome === 'pass').length;
  const baseFailing = [...baseline.values()].filter((c) => c.outcome === 'fail').length;
  // The paper adds an epsilon to the denominators; a plain zero for an empty side says the same.
  const p2fRate = basePassing === 0 ? 0 : flips.p2f.length / basePassing;
  const f2pRate = baseFailing === 0 ? 0 : flips.f2p.length / baseFailing;
  const total = new Set([...baseline.keys(), ...candidate.keys()]).size;

  const checks: GateCheck[] = [
    gradedCheck(flips.ungraded.length, total, policy.maxUngradedShare),
    {
      name: 'regressions',
      ok: flips.p2f.length <= policy.maxP2F,
      message: `${flips.p2f.length} pass→fail regression${flips.p2f.length === 1 ? '' : 's'} (at most ${policy.maxP2F} allowed)${flips.p2f.length > 0 ? `: ${flips.p2f.slice(0, 8).join(', ')}${flips.p2f.length > 8 ? ', …' : ''}` : ''}`,
    },
    {
      name: 'regression_rate',
      ok: p2fRate <= policy.maxP2FRate + EPSILON,
      message: `regression rate ${pct(p2fRate)} of ${basePassing} passing cases (at most ${pct(policy.maxP2FRate)})`,
    },
    {
      name: 'fixes',
      ok: flips.f2p.length >= policy.minF2P,
      message: `${flips.f2p.length} fail→pass fix${flips.f2p.length === 1 ? '' : 'es'} (at least ${policy.minF2P} required)`,
    },
    hitRateCheck(flips.f2p, baseline, intent, policy.minHitRate),
  ];
  return {
    policy: 'flips',
    ...verdictOf(checks),
    checks,
    p2f: flips.p2f,
    f2p: flips.f2p,
    flaky: [],
    significant: { regressions: [], fixes: [] },
    pValue: signTestOneSided(flips.p2f.length, flips.f2p.length),
    p2fRate,
    f2pRate,
    hitRate: hitRateOf(flips.f2p, baseline, intent),
    baselinePassRate: passRate(baseline),
    candidatePassRate: passRate(candidate),
  };
}

export function gradedCheck(ungraded: number, total: number, maxShare: number): GateCheck {
  const share = total === 0 ? 1 : ungraded / total;
  return {
    name: 'graded',
    ok: share <= maxShare,
    message: `${ungraded} of ${total} cases could not be graded (infrastructure errors; at most ${pct(maxShare)} allowed)`,
  };
}

/** Share of fixes whose baseline symptom the change intent targets; null without fixes or intent. */
export function hitRateOf(fixes: readonly string[], baseline: ReadonlyMap<string, CaseSummary>, intent: ChangeIntent | null): number | null {
  if (fixes.length === 0 || !intent) return null;
  return fixes.filter((id) => intent.targets.includes(baseline.get(id)?.symptom ?? '')).length / fixes.length;
}

export function hitRateCheck(fixes: readonly string[], baseline: ReadonlyMap<string, CaseSummary>, intent: ChangeIntent | null, minHitRate: number): GateCheck {
  const hitRate = hitRateOf(fixes, baseline, intent);
  const hits = hitRate === null ? 0 : Math.round(hitRate * fixes.length);
  return {
    name: 'hit_rate',
    ok: fixes.length === 0 || intent === null || (hitRate ?? 0) >= minHitRate - EPSILON,
    message:
      intent === null
        ? 'hit rate not checked (the candidate states no change intent)'
        : hitRate === null
          ? 'hit rate not applicable (no fixes)'
          : `hit rate ${pct(hitRate)}: ${hits} of ${fixes.length} fixes had a targeted symptom (${intent.targets.join(', ')}; at least ${pct(minHitRate)})`,
  };
}

/** accept when every check holds; undecided when too few cases were graded; else reject, with the failed checks as reasons. */
export function verdictOf(checks: readonly GateCheck[]): { verdict: GateVerdict; reasons: string[] } {
  const graded = checks.find((c) => c.name === 'graded');
  const verdict: GateVerdict = graded && !graded.ok ? 'undecided' : checks.every((c) => c.ok) ? 'accept' : 'reject';
  const reasons = verdict === 'accept' ? checks.filter((c) => c.name !== 'graded').map((c) => c.message) : checks.filter((c) => !c.ok).map((c) => c.message);
  return { verdict, reasons };
}

/** The decision for an RC that edits files outside its blueprint folder: rejected before it runs. */
export function scopeRejection(outside: readonly string[], blueprint: string): GateDecision {
  const shown = outside.slice(0, 5).join(', ');
  const message = `edits outside blueprints/${blueprint}/ (${shown}${outside.length > 5 ? ', …' : ''}): an RC may change its blueprint only, so it was rejected before running`;
  return {
    policy: 'flips',
    verdict: 'reject',
    checks: [{ name: 'scope', ok: false, message }],
    reasons: [message],
    p2f: [],
    f2p: [],
    flaky: [],
    significant: { regressions: [], fixes: [] },
    pValue: 1,
    p2fRate: 0,
    f2pRate: 0,
    hitRate: null,
    baselinePassRate: 0,
    candidatePassRate: 0,
  };
}
