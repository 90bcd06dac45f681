import type { FlipsDecision, GateDecision, GatePolicyKind } from '../../domain/decision.ts';
import { flipsOnly } from './layers.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import { addConfirmation, confirmationTests, designConfirmation, freshInfrastructure, freshPairs, nextStep, type ConfirmationDesign, type GateStep, type Side, type Tallies } from './confirmation.ts';
import { estimateTables, type EstimateTable } from './estimators.ts';
import { computeFlips, type CaseSummary } from './flips.ts';
import { decideFlipsAtFaceValue, plural, type GatePolicy } from './face-value-gate.ts';
import { meanPassRate, screen, type Screening } from './screening.ts';
import { singleStagePower, twoStagePower } from './power-statement.ts';
import { splitAlpha } from './significance.ts';
import { decideFlipsStatistically, singleStageProcedure, singleStageTests, twoStageProcedure, type StatisticalPolicy } from './statistical-gate.ts';

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
  /** One more candidate screen trial where every record and the candidate passed (screening.ts, `secondLookCases`). */
  readonly secondLook: 'auto' | 'always' | 'never';
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

export interface CompareInput {
  /** Per-case pass counts of each run (a run's records are never all held at once). */
  readonly baseline: ReadonlyMap<string, CaseSummary>;
  readonly candidate: ReadonlyMap<string, CaseSummary>;
  readonly policy: ComparePolicy;
  readonly noise: NoiseEvidence;
  readonly intent: ChangeIntent | null;
}

function paperGate(input: CompareInput, baselineCases: Map<string, CaseSummary>, candidateCases: Map<string, CaseSummary>): FlipsDecision {
  return decideFlipsAtFaceValue({
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
export function decideOnRecordedRuns(input: CompareInput): Comparison {
  const baselineCases = new Map(input.baseline);
  const candidateCases = new Map(input.candidate);
  let decision: FlipsDecision;
  if (resolvePolicy(input.policy.policy) === 'flips') decision = paperGate(input, baselineCases, candidateCases);
  else {
    const screening = screen(baselineCases, candidateCases);
    decision = decideFlipsStatistically({
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

export interface GatedComparison extends Comparison {
  /** Fresh case-trials the confirmation ran, per side. */
  readonly confirmationTrials: { readonly baseline: number; readonly candidate: number };
  readonly rounds: number;
}

/** What the release gate starts from: both screens, and how the baseline's was taken. */
export interface ConfirmationInput extends CompareInput {
  /** Trials per case in each screening run. */
  readonly screeningTrials: number;
  /** How many records of the baseline `baseline` pools (each `screeningTrials` trials a case). */
  readonly records: number;
}

/** Fresh trials of some cases on one side, as one round brought them. */
export interface FreshCases {
  readonly side: Side;
  readonly cases: ReadonlyMap<string, CaseSummary>;
}

/**
 * The release gate between rounds of fresh trials, as a value: each round makes a new one. The
 * paper-faithful policy decides on the screen alone, so its session starts decided.
 */
export type GateSession =
  | { readonly kind: 'decided'; readonly comparison: GatedComparison }
  | {
      readonly kind: 'confirming';
      readonly input: ConfirmationInput;
      readonly screening: Screening;
      /** Fixed before any fresh trial runs, so the design cannot peek. */
      readonly design: ConfirmationDesign;
      readonly tallies: Tallies;
      readonly trials: { readonly baseline: number; readonly candidate: number };
      readonly rounds: number;
    };

function gated(input: CompareInput, decision: FlipsDecision, confirmationTrials = { baseline: 0, candidate: 0 }, rounds = 0): GatedComparison {
  const baselineCases = new Map(input.baseline);
  const candidateCases = new Map(input.candidate);
  return { baseline: stats(baselineCases), candidate: stats(candidateCases), decision: flipsOnly(decision), baselineCases, candidateCases, confirmationTrials, rounds };
}

/**
 * The release gate's first step: screening and the confirmation's design (the statistical gate),
 * or the decision itself (the paper-faithful gate, which reads the screen alone).
 */
export function beginConfirmation(input: ConfirmationInput): GateSession {
  if (resolvePolicy(input.policy.policy) === 'flips') return { kind: 'decided', comparison: gated(input, paperGate(input, new Map(input.baseline), new Map(input.candidate))) };
  const screening = screen(new Map(input.baseline), new Map(input.candidate));
  return { kind: 'confirming', input, screening, design: designConfirmation(screening, input.policy), tallies: new Map(), trials: { baseline: 0, candidate: 0 }, rounds: 0 };
}

/** What the gate needs next: fresh trials of its live cases on both sides, or nothing more (decide). */
export function nextConfirmationStep(session: GateSession): GateStep {
  return session.kind === 'decided' ? { kind: 'decide' } : nextStep(session.design, session.tallies);
}

/** The session with one round's fresh trials added (a new session: the evidence only grows). */
export function withRound(session: GateSession, fresh: readonly FreshCases[]): GateSession {
  if (session.kind === 'decided') throw new Error('withRound: the gate has decided; it asked for no fresh trials');
  let tallies = session.tallies;
  const trials = { ...session.trials };
  for (const { side, cases } of fresh) {
    trials[side] += [...cases.values()].reduce((sum, c) => sum + c.trials, 0);
    tallies = addConfirmation(tallies, side, cases);
  }
  return { ...session, tallies, trials, rounds: session.rounds + 1 };
}

/**
 * The release gate's decision once `nextConfirmationStep` says decide: every selected case's
 * verdict on its fresh trials, the paired test on the first fresh pairs, and the statement of
 * power. The rounds end: each adds trials to a live case, and no case takes more than 2K trials
 * a side (K graded, K failed).
 */
export function finishGate(session: GateSession): GatedComparison {
  if (session.kind === 'decided') return session.comparison;
  const { input, design, screening, tallies } = session;
  const underpowered = design.families.flatMap((f) => (f.underpoweredByCap.length > 0 ? [f] : []));
  const warnings = underpowered.map(
    (f) =>
      `${plural(f.underpoweredByCap.length, `possible ${f.direction}`)} could not get 90% power against a change of ${input.policy.detectableDrop} within ` +
      `gate.maxConfirmTrials = ${input.policy.maxConfirmTrials} fresh trials a side; raise it to see smaller changes`,
  );
  const tests = confirmationTests(design, screening, tallies);
  const pairs = freshPairs(design, tallies);
  const levels = splitAlpha(input.policy.alpha);
  const decision = decideFlipsStatistically({
    policy: input.policy,
    screening,
    tests,
    procedure: twoStageProcedure(input.policy.alpha, design, { trials: input.screeningTrials, records: input.records }),
    aggregate: { worse: pairs.worse, better: pairs.better, pValue: pairs.pValue, source: 'fresh' },
    power: twoStagePower({ design, tests, screening, records: input.records, screeningTrials: input.screeningTrials, aggregate: { pairs: pairs.pairs, level: levels.aggregate } }),
    infrastructure: { source: 'fresh', ...freshInfrastructure(design, tallies) },
    baseline: new Map(input.baseline),
    candidate: new Map(input.candidate),
    intent: input.intent,
    warnings,
  });
  return gated(input, decision, session.trials, session.rounds);
}
