import type { FlipsDecision, GateCheck, GateVerdict, Procedure } from '../../domain/decision.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { CaseSummary, Flips } from './flips.ts';
import { meanPassRate, type Screening } from './screening.ts';
import { infrastructureBalanceCheck, screeningInfrastructure } from './infrastructure-balance.ts';
import { listed, pct, plural } from './wording.ts';

export interface GatePolicy {
  readonly maxP2F: number;
  readonly maxP2FRate: number;
  readonly minF2P: number;
  readonly minHitRate: number;
  /** Most share of cases that may be ungraded (infrastructure errors) for a decision to stand. */
  readonly maxUngradedShare: number;
}

const EPSILON = 1e-9;

export { listed, pct, plural } from './wording.ts';

const FLIPS_PROCEDURE: Procedure = {
  kind: 'flips',
  alpha: null,
  aggregateLevel: null,
  familyLevel: null,
  fixLevel: null,
  baselineRecords: null,
  trialsPerSide: { regression: null, fix: null },
  text:
    'Paper-faithful flip gate: every pass→fail and fail→pass flip between the two runs counts as observed, ' +
    'with no confirmation. Sound for a deterministic agent; on a noisy agent, noise flips count as regressions.',
  guarantee: null,
};

/**
 * The paper-faithful flip gate (section 2.4): regressions are release accidents, fixes are the
 * evidence, and fixes must land on the symptoms the change intent targets. Without targets
 * (compare, a hand-made candidate without targets) no fixes are required. Pure.
 */
export function decideFlipsAtFaceValue(input: {
  readonly policy: GatePolicy;
  readonly flips: Flips;
  readonly screening: Screening;
  readonly baseline: ReadonlyMap<string, CaseSummary>;
  readonly candidate: ReadonlyMap<string, CaseSummary>;
  readonly intent: ChangeIntent | null;
  readonly warnings: readonly string[];
}): FlipsDecision {
  const { policy, flips, baseline, candidate, intent } = input;
  const basePassing = [...baseline.values()].filter((c) => c.outcome === 'pass').length;
  const baseFailing = [...baseline.values()].filter((c) => c.outcome === 'fail').length;
  // The paper adds an epsilon to the denominators; a plain zero for an empty side says the same.
  const p2fRate = basePassing === 0 ? 0 : flips.p2f.length / basePassing;
  const f2pRate = baseFailing === 0 ? 0 : flips.f2p.length / baseFailing;
  const total = new Set([...baseline.keys(), ...candidate.keys()]).size;
  // Every flip is taken at face value here, and so is an imbalance of infrastructure errors: a
  // candidate that errs where the baseline was graded is not accepted (it may be hiding failures).
  const imbalance = infrastructureBalanceCheck(screeningInfrastructure(baseline, candidate), { kind: 'face_value' });
  // Once the imbalance is shown, the cases it names are the candidate's own failures, not missing evidence.
  const ownFailures = new Set(imbalance && !imbalance.ok ? imbalance.cases : []);

  const checks: GateCheck[] = [
    gradedCheck(flips.ungraded.filter((id) => !ownFailures.has(id)).length, total, policy.maxUngradedShare),
    ...(imbalance ? [imbalance] : []),
    {
      name: 'regressions',
      ok: flips.p2f.length <= policy.maxP2F,
      message: `${plural(flips.p2f.length, 'pass→fail regression')} (at most ${policy.maxP2F} allowed)${listed(flips.p2f, 8)}`,
    },
    {
      name: 'regression_rate',
      ok: p2fRate <= policy.maxP2FRate + EPSILON,
      message: `regression rate ${pct(p2fRate)} of ${basePassing} passing cases (at most ${pct(policy.maxP2FRate)})`,
    },
    ...intentChecks(flips.f2p, baseline, intent, policy, 'fail→pass'),
  ];
  return {
    policy: 'flips',
    ...verdictOf(checks),
    checks,
    warnings: [...input.warnings],
    p2f: flips.p2f,
    f2p: flips.f2p,
    flaky: [],
    screening: { p2f: flips.p2f, f2p: flips.f2p },
    aggregate: { ...input.screening.aggregate, level: null, source: 'screening' },
    tests: [],
    procedure: FLIPS_PROCEDURE,
    rates: { p2fRate, f2pRate, hitRate: hitRateOf(flips.f2p, baseline, intent) },
    passRates: { baseline: meanPassRate(baseline), candidate: meanPassRate(candidate) },
    power: null,
  };
}

/** With a change intent that names targets, the RC must bring fixes, and they must land on what it targets. */
export function intentChecks(
  fixes: readonly string[],
  baseline: ReadonlyMap<string, CaseSummary>,
  intent: ChangeIntent | null,
  policy: Pick<GatePolicy, 'minF2P' | 'minHitRate'>,
  kind: string,
  unconfirmed: readonly string[] = [],
): GateCheck[] {
  // A rationale without targets (a commit message) asks for nothing: the flips alone decide.
  if (!intent || intent.targets.length === 0) return [];
  const short = fixes.length < policy.minF2P;
  // Why a change that looks like a fix can fail here, where the same change without targets passes:
  // naming targets is a claim the gate checks, and a rise within noise is no confirmed fix.
  const why = short
    ? `: the change intent names targets (${intent.targets.join(', ')}), so it must bring fixes the gate can confirm` +
      (unconfirmed.length > 0 ? `; ${unconfirmed.join(', ')} rose but within noise, which does not count (more trials, or no targets, and the flips alone decide)` : '')
    : '';
  return [
    {
      name: 'fixes',
      ok: !short,
      message: `${plural(fixes.length, `${kind} fix`, `${kind} fixes`)} (at least ${policy.minF2P} required)${why}`,
    },
    hitRateCheck(fixes, baseline, intent, policy.minHitRate),
  ];
}

export function gradedCheck(ungraded: number, total: number, maxShare: number): GateCheck {
  const share = total === 0 ? 1 : ungraded / total;
  return {
    name: 'graded',
    ok: share <= maxShare,
    message: `${ungraded} of ${total} cases could not be graded (infrastructure errors; at most ${pct(maxShare)} allowed)`,
  };
}

/** Share of fixes whose baseline symptom the change intent targets; null without fixes or targets. */
export function hitRateOf(fixes: readonly string[], baseline: ReadonlyMap<string, CaseSummary>, intent: ChangeIntent | null): number | null {
  if (fixes.length === 0 || !intent || intent.targets.length === 0) return null;
  return fixes.filter((id) => intent.targets.includes(baseline.get(id)?.symptom ?? '')).length / fixes.length;
}

function hitRateCheck(fixes: readonly string[], baseline: ReadonlyMap<string, CaseSummary>, intent: ChangeIntent, minHitRate: number): GateCheck {
  const hitRate = hitRateOf(fixes, baseline, intent);
  const hits = hitRate === null ? 0 : Math.round(hitRate * fixes.length);
  return {
    name: 'hit_rate',
    ok: fixes.length === 0 || (hitRate ?? 0) >= minHitRate - EPSILON,
    message:
      hitRate === null
        ? 'hit rate not applicable (no fixes)'
        : `hit rate ${pct(hitRate)}: ${hits} of ${fixes.length} fixes had a targeted symptom (${intent.targets.join(', ')}; at least ${pct(minHitRate)})`,
  };
}

/** Checks that make a decision impossible rather than negative: the evidence is missing, not bad. */
const BLOCKING: ReadonlySet<GateCheck['name']> = new Set(['graded', 'confirmation']);

/** accept when every check holds; undecided when evidence is missing; else reject, with the failed checks as reasons. */
export function verdictOf(checks: readonly GateCheck[]): { verdict: GateVerdict; reasons: string[] } {
  const verdict: GateVerdict = checks.some((c) => BLOCKING.has(c.name) && !c.ok) ? 'undecided' : checks.every((c) => c.ok) ? 'accept' : 'reject';
  const reasons = verdict === 'accept' ? checks.filter((c) => c.name !== 'graded').map((c) => c.message) : checks.filter((c) => !c.ok).map((c) => c.message);
  return { verdict, reasons };
}

/** The decision for an RC that edits files outside its blueprint folder: rejected before it runs. */
export function scopeRejection(outside: readonly string[], blueprint: string): FlipsDecision {
  const shown = outside.slice(0, 5).join(', ');
  return notRunDecision(
    'scope',
    `edits outside blueprints/${blueprint}/ (${shown}${outside.length > 5 ? ', …' : ''}): an RC may change its blueprint only, so it was rejected before running`,
  );
}

/** A rejection decided before the candidate ran (its scope, a failing blueprint check): no flips, no statistics. */
export function notRunDecision(name: GateCheck['name'], message: string): FlipsDecision {
  return {
    policy: 'flips',
    verdict: 'reject',
    checks: [{ name, ok: false, message }],
    reasons: [message],
    warnings: [],
    p2f: [],
    f2p: [],
    flaky: [],
    screening: { p2f: [], f2p: [] },
    aggregate: { worse: 0, better: 0, pValue: 1, level: null, source: 'screening' },
    tests: [],
    procedure: { ...FLIPS_PROCEDURE, kind: 'not_run', text: 'The candidate was not run: an earlier check decided.' },
    rates: { p2fRate: 0, f2pRate: 0, hitRate: null },
    passRates: { baseline: 0, candidate: 0 },
    power: null,
  };
}
