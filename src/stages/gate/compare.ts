import type { FlipsDecision, GateDecision, GatePolicyKind } from '../../domain/decision.ts';
import { flipsOnly } from './layers.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import { addConfirmation, confirmationTests, designConfirmation, freshInfrastructure, freshPairs, nextStep, type ConfirmationRequest, type Side, type Tallies } from './confirmation.ts';
import { estimateTables, type EstimateTable } from './estimators.ts';
import { computeFlips, type CaseSummary } from './flips.ts';
import { decideGate, plural, type GatePolicy } from './gate.ts';
import { meanPassRate, screen } from './screening.ts';
import { singleStagePower, twoStagePower } from './power-statement.ts';
import { splitAlpha } from './significance.ts';
import { decideStatistical, singleStageProcedure, singleStageTests, twoStageProcedure, type StatisticalPolicy } from './statistical-gate.ts';

export interface ComparePolicy extends GatePolicy, StatisticalPolicy {
  /** auto: the statistical gate (sound on noisy agents); flips: the paper-faithful gate, by name. */
  readonly policy: 'auto' | GatePolicyKind;
  /** Most fresh trials per side for one confirmed case. */
  readonly maxConfirmTrials: number;
  /** The change K is chosen to confirm with 90% power. */
  readonly detectableDrop: number;
  /** Stop confirming a case whose predicted chance of ending significant is below this. */
  readonly futility: number;
  /** Records of the baseline's screen the gate selects with. */
  readonly baselineRecords: number;
}

export interface RunStats {
  /** pass^1: the mean over cases of the share of graded trials that passed. */
  readonly passRate: number;
  readonly passHat: EstimateTable;
  readonly passAt: EstimateTable;
  readonly cases: number;
  readonly trials: number;
}

export interface Comparison {
  readonly baseline: RunStats;
  readonly candidate: RunStats;
  readonly decision: GateDecision;
  readonly baselineCases: Map<string, CaseSummary>;
  readonly candidateCases: Map<string, CaseSummary>;
}

/** What the store knows of this agent's noise: cases that varied within one version. */
export interface NoiseEvidence {
  readonly variedCases: number;
}

function stats(cases: ReadonlyMap<string, CaseSummary>): RunStats {
  const list = [...cases.values()];
  return {
    passRate: meanPassRate(cases),
    ...estimateTables(list),
    cases: list.length,
    trials: list.reduce((most, c) => Math.max(most, c.graded), 0),
  };
}

export function resolvePolicy(policy: ComparePolicy['policy']): GatePolicyKind {
  return policy === 'auto' ? 'stochastic' : policy;
}

function flipsWarnings(noise: NoiseEvidence): string[] {
  if (noise.variedCases === 0) return [];
  return [
    `gate.policy "flips" takes every flip at face value, but this agent is noisy: ${plural(noise.variedCases, 'case')} passed and failed ` +
      'within one version in earlier runs of this task. Noise flips count as regressions here; the default policy "auto" confirms them.',
  ];
}

interface CompareInput {
  /** Per-case pass counts of each run (a run's records are never all held at once). */
  readonly baseline: ReadonlyMap<string, CaseSummary>;
  readonly candidate: ReadonlyMap<string, CaseSummary>;
  readonly policy: ComparePolicy;
  readonly noise: NoiseEvidence;
  readonly intent: ChangeIntent | null;
}

function paperGate(input: CompareInput, baselineCases: Map<string, CaseSummary>, candidateCases: Map<string, CaseSummary>): FlipsDecision {
  return decideGate({
    policy: input.policy,
    flips: computeFlips(baselineCases, candidateCases),
    screening: screen(baselineCases, candidateCases),
    baseline: baselineCases,
    candidate: candidateCases,
    intent: input.intent,
    warnings: flipsWarnings(input.noise),
  });
}

/**
 * Compares two recorded runs that cannot be re-run (`compare`, `calibrate`): the single-stage
 * statistical gate, or the paper-faithful one when the policy names it.
 */
export function compareRuns(input: CompareInput): Comparison {
  const baselineCases = new Map(input.baseline);
  const candidateCases = new Map(input.candidate);
  let decision: FlipsDecision;
  if (resolvePolicy(input.policy.policy) === 'flips') decision = paperGate(input, baselineCases, candidateCases);
  else {
    const screening = screen(baselineCases, candidateCases);
    decision = decideStatistical({
      policy: input.policy,
      screening,
      tests: singleStageTests(screening, input.policy.alpha),
      procedure: singleStageProcedure(input.policy.alpha),
      aggregate: { ...screening.aggregate, source: 'screening' },
      power: singleStagePower({ screening, level: splitAlpha(input.policy.alpha, 'one').regression, fdr: input.policy.alpha, aggregateLevel: splitAlpha(input.policy.alpha, 'one').aggregate, detectableDrop: input.policy.detectableDrop }),
      // No fresh trials, so no balance test: the single stage spends no alpha on one (splitAlpha).
      infrastructure: null,
      baseline: baselineCases,
      candidate: candidateCases,
      intent: input.intent,
      warnings: [],
    });
  }
  return { baseline: stats(baselineCases), candidate: stats(candidateCases), decision: flipsOnly(decision), baselineCases, candidateCases };
}

/** Runs fresh trials of some cases on one side and returns their summaries (the pipeline's runs, or a simulation). */
export type ConfirmationRunner = (request: ConfirmationRequest) => Promise<ReadonlyMap<string, CaseSummary>>;

export interface GatedComparison extends Comparison {
  /** Fresh case-trials the confirmation ran, per side. */
  readonly confirmationTrials: { readonly baseline: number; readonly candidate: number };
  readonly rounds: number;
}

/**
 * The release gate: screening, then confirmation of every selected case on fresh trials until
 * each verdict is settled, then the decision. The planner is pure; this loop only asks the runner
 * for what the planner names, so the gate never runs anything itself. Each round's requests of
 * the two sides go to the runner together, so both versions' fresh trials run side by side. It
 * ends: every round adds trials to a live case, and no case takes more than 2K trials a side (K
 * graded, K failed).
 */
export async function compareCandidateRuns(
  input: CompareInput & {
    /** Trials per case in each screening run. */
    readonly screeningTrials: number;
    /** How many records of the baseline `baseline` pools (each `screeningTrials` trials a case). */
    readonly records: number;
  },
  deps: { readonly runner: ConfirmationRunner },
): Promise<GatedComparison> {
  const baselineCases = new Map(input.baseline);
  const candidateCases = new Map(input.candidate);
  const done = (decision: FlipsDecision, confirmationTrials = { baseline: 0, candidate: 0 }, rounds = 0): GatedComparison => ({
    baseline: stats(baselineCases),
    candidate: stats(candidateCases),
    decision: flipsOnly(decision),
    baselineCases,
    candidateCases,
    confirmationTrials,
    rounds,
  });
  if (resolvePolicy(input.policy.policy) === 'flips') return done(paperGate(input, baselineCases, candidateCases));

  const screening = screen(baselineCases, candidateCases);
  const design = designConfirmation(screening, input.policy);
  let tallies: Tallies = new Map();
  const trials = { baseline: 0, candidate: 0 };
  let rounds = 0;
  for (let step = nextStep(design, tallies); step.kind === 'run'; step = nextStep(design, tallies)) {
    rounds += 1;
    const sides = (['baseline', 'candidate'] as const).map((side) => step.requests.filter((r) => r.side === side));
    // Both sides settle before a failure propagates, so nothing is left running behind it.
    const settled = await Promise.allSettled(
      sides.map(async (requests) => {
        const fresh: Array<{ side: Side; cases: ReadonlyMap<string, CaseSummary> }> = [];
        for (const request of requests) fresh.push({ side: request.side, cases: await runChecked(deps.runner, request) });
        return fresh;
      }),
    );
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const results = settled.map((s) => (s as PromiseFulfilledResult<Array<{ side: Side; cases: ReadonlyMap<string, CaseSummary> }>>).value);
    for (const { side, cases } of results.flat()) {
      trials[side] += [...cases.values()].reduce((sum, c) => sum + c.trials, 0);
      tallies = addConfirmation(tallies, side, cases);
    }
  }
  const underpowered = design.families.flatMap((f) => (f.underpoweredByCap.length > 0 ? [f] : []));
  const warnings = underpowered.map(
    (f) =>
      `${plural(f.underpoweredByCap.length, `possible ${f.direction}`)} could not get 90% power against a change of ${input.policy.detectableDrop} within ` +
      `gate.maxConfirmTrials = ${input.policy.maxConfirmTrials} fresh trials a side; raise it to see smaller changes`,
  );
  const tests = confirmationTests(design, screening, tallies);
  const pairs = freshPairs(design, tallies);
  const levels = splitAlpha(input.policy.alpha);
  const decision = decideStatistical({
    policy: input.policy,
    screening,
    tests,
    procedure: twoStageProcedure(input.policy.alpha, design, { trials: input.screeningTrials, records: input.records }),
    aggregate: { worse: pairs.worse, better: pairs.better, pValue: pairs.pValue, source: 'fresh' },
    power: twoStagePower({ design, tests, screening, records: input.records, screeningTrials: input.screeningTrials, aggregate: { pairs: pairs.pairs, level: levels.aggregate } }),
    infrastructure: { source: 'fresh', ...freshInfrastructure(design, tallies) },
    baseline: baselineCases,
    candidate: candidateCases,
    intent: input.intent,
    warnings,
  });
  return done(decision, trials, rounds);
}

/** One request of the runner, checked: each round must add attempts, or the loop would not end. */
async function runChecked(runner: ConfirmationRunner, request: ConfirmationRequest): Promise<ReadonlyMap<string, CaseSummary>> {
  const fresh = await runner(request);
  const ran = [...fresh.values()].reduce((sum, c) => sum + c.trials, 0);
  if (ran !== request.trials * request.caseIds.length) {
    throw new Error(`confirmation asked for ${request.trials} trials of ${request.caseIds.length} cases (${request.side}) and got ${ran} trials`);
  }
  return fresh;
}
