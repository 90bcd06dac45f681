import type { FlipsDecision, GateDecision, GatePolicyKind } from '../../domain/decision.ts';
import { flipsOnly } from './layers.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import { addConfirmation, confirmationTests, designConfirmation, nextStep, type ConfirmationRequest, type Tallies } from './confirmation.ts';
import { estimateTables, type EstimateTable } from './estimators.ts';
import { computeFlips, type CaseSummary } from './flips.ts';
import { decideGate, plural, type GatePolicy } from './gate.ts';
import { meanPassRate, screen } from './screening.ts';
import { decideStatistical, singleStageProcedure, singleStageTests, twoStageProcedure, type StatisticalPolicy } from './statistical-gate.ts';

export interface ComparePolicy extends GatePolicy, StatisticalPolicy {
  /** auto: the statistical gate (sound on noisy agents); flips: the paper-faithful gate, by name. */
  readonly policy: 'auto' | GatePolicyKind;
  /** Most fresh trials per side for one confirmed case. */
  readonly maxConfirmTrials: number;
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
 * The release gate: screening, then confirmation of every moved case on fresh trials until each
 * verdict is settled, then the decision. The planner is pure; this loop only asks the runner
 * for what the planner names, so the gate never runs anything itself. It ends: every round adds
 * trials to a live case, and no case takes more than 2K trials a side (K graded, K failed).
 */
export async function gateCandidateRuns(input: CompareInput & { readonly screeningTrials: number }, deps: { readonly runner: ConfirmationRunner }): Promise<GatedComparison> {
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
    for (const request of step.requests) {
      const fresh = await deps.runner(request);
      // Each round must add attempts, or the loop would not end: a runner that returns fewer trials than asked is a bug.
      const ran = [...fresh.values()].reduce((sum, c) => sum + c.trials, 0);
      if (ran !== request.trials * request.caseIds.length) {
        throw new Error(`confirmation asked for ${request.trials} trials of ${request.caseIds.length} cases (${request.side}) and got ${ran} trials`);
      }
      trials[request.side] += ran;
      tallies = addConfirmation(tallies, request.side, fresh);
    }
  }
  const warnings = design.families
    .filter((f) => f.cases.length > 0 && f.trialsPerSide === null)
    .map(
      (f) =>
        `no single ${f.direction} among ${plural(f.cases.length, 'moved case')} can be confirmed: the corrected level ${f.bar.toPrecision(2)} needs more than ` +
        `gate.maxConfirmTrials = ${design.maxTrials} fresh trials per side (only the paired test can reject)`,
    );
  const decision = decideStatistical({
    policy: input.policy,
    screening,
    tests: confirmationTests(design, screening, tallies),
    procedure: twoStageProcedure(input.policy.alpha, design, input.screeningTrials),
    baseline: baselineCases,
    candidate: candidateCases,
    intent: input.intent,
    warnings,
  });
  return done(decision, trials, rounds);
}
