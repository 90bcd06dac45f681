// One simulated gate decision through the gate's own code and its loop (pipeline/gate/confirmation-loop.ts): a stochastic agent with known per-case
// pass chances, the baseline's stored records, an optional drift of the provider between those
// records and the candidate's run, an injected change, and every fresh trial the planner asks for.
// Shared by bench/gate-trust.ts (fresh randomness) and the unit tests (fixed seeds).
import type { ChangeIntent } from '../../src/domain/release-candidate.ts';
import { poolCaseSummaries, summarizeCases } from '../../src/domain/case-summary.ts';
import { secondLookCases } from '../../src/stages/gate/screening.ts';
import type { ComparePolicy } from '../../src/stages/gate/compare.ts';
import { confirmCandidate } from '../../src/pipeline/gate/confirmation-loop.ts';
import { caseId, drawAgent, sampleRecords, type Mix } from './simulated-agent.ts';

/** Cases whose pass chance changes: each from `before` (baseline) to `after` (candidate). */
export interface Change {
  readonly before: number;
  readonly after: number;
}

/** When a change of the provider lands, counted in case-trial starts of the gate (see `timing`). */
export type Moment = 'before the screen' | 'between the two sides' | 'inside a round' | 'between rounds';

export interface Scenario {
  readonly name: string;
  /** Added to every case's pass chance, both versions, between the baseline's records and the candidate's run (or from `timing.moment`). */
  readonly shift: number;
  readonly changes: readonly Change[];
  /** The RC states an intent: then it must show a confirmed fix. */
  readonly intent: boolean;
  /**
   * The gate's fresh trials run in time, through the round's paired turns at this concurrency,
   * and `shift` lands at `moment` (or, with `outage`, every case-trial started within half a
   * round's trials from that moment fails: an outage graded as failures, not as errors).
   */
  readonly timing?: { readonly moment: Moment; readonly concurrency: number; readonly outage?: boolean };
}

export interface PairResult {
  readonly verdict: 'accept' | 'reject' | 'undecided';
  /** The changed cases that dropped are exactly the ones named as regressions. */
  readonly namedExactly: boolean;
  /** Some changed case was named as a regression. */
  readonly named: boolean;
  /** How many of the cases that dropped were named, and how many cases that did not drop were. */
  readonly namedDropped: number;
  readonly namedOthers: number;
  /** Agent runs for the decision (the candidate's screen and every fresh trial, both sides), over N. */
  readonly runsPerCase: number;
  readonly fixes: number;
  /** What became of each changed case that dropped: not selected, or its confirmation's outcome (with K). */
  readonly droppedFates: readonly string[];
}

const clamp = (p: number): number => Math.min(1, Math.max(0, p));
const INTENT: ChangeIntent = { targets: ['wrong_outcome'], rationale: 'simulated' };

export async function simulatePair(input: {
  readonly mix: Mix;
  readonly cases: number;
  readonly scenario: Scenario;
  readonly policy: ComparePolicy;
  readonly trials: number;
  readonly random: () => number;
}): Promise<PairResult> {
  const { scenario, trials, random, policy } = input;
  const p = drawAgent(input.mix, input.cases, random);
  const q = [...p];
  // The changed cases are the first ones: cases are drawn independently, so which ones is immaterial.
  scenario.changes.forEach((change, i) => {
    p[i] = change.before;
    q[i] = change.after;
  });
  const ids = p.map((_, i) => caseId(i));
  const chances = (values: number[], shift: number) => new Map(ids.map((id, i) => [id, clamp((values[i] as number) + shift)]));
  const recorded = chances(p, 0);
  const now = { baseline: chances(p, scenario.shift), candidate: chances(q, scenario.shift) };
  const records = policy.baselineRecords;
  const baseline = summarizeCases(sampleRecords(recorded, ids, records * trials, 0, random));
  // A provider change that lands at a moment of the gate itself comes after the screen, unless it comes before it.
  const screenedUnder = scenario.timing && scenario.timing.moment !== 'before the screen' ? chances(q, 0) : now.candidate;
  const firstLook = summarizeCases(sampleRecords(screenedUnder, ids, trials, 0, random));
  const again = secondLookCases(baseline, firstLook, policy.secondLook);
  const candidate = again.length === 0 ? firstLook : poolCaseSummaries([firstLook, summarizeCases(sampleRecords(screenedUnder, again, trials, trials, random))]);
  const next = new Map<string, number>();
  const confirmation = { baseline, candidate, policy, noise: { variedCases: 0 }, intent: scenario.intent ? INTENT : null, screeningTrials: trials, records };
  const { comparison: gated } = scenario.timing
    ? await confirmInTime(confirmation, { timing: scenario.timing, shift: scenario.shift, chances: { baseline: chances(p, 0), candidate: chances(q, 0) }, firstTrial: records * trials, random })
    : await confirmCandidate(confirmation, async (request) => {
      const out = [];
      for (const id of request.caseIds) {
        const key = `${request.side}:${id}`;
        const first = next.get(key) ?? records * trials;
        next.set(key, first + request.trials);
        out.push(...sampleRecords(now[request.side], [id], request.trials, first, random));
      }
      return { cases: summarizeCases(out), runs: [] };
    });
  const dropped = scenario.changes.flatMap((c, i) => (c.after < c.before ? [caseId(i)] : [])).sort();
  const named = [...gated.decision.p2f].sort();
  return {
    verdict: gated.decision.verdict,
    namedExactly: dropped.length === named.length && dropped.every((id, i) => named[i] === id),
    named: named.some((id) => dropped.includes(id)),
    namedDropped: named.filter((id) => dropped.includes(id)).length,
    namedOthers: named.filter((id) => !dropped.includes(id)).length,
    runsPerCase: (input.cases * trials + again.length * trials + gated.confirmationTrials.baseline + gated.confirmationTrials.candidate) / input.cases,
    fixes: gated.decision.f2p.length,
    droppedFates: dropped.map((id) => {
      const test = gated.decision.tests.find((t) => t.caseId === id && t.direction === 'regression');
      if (!test) return 'not selected';
      return test.outcome === 'confirmed' || test.outcome === 'not_confirmed' ? `${test.outcome} (Holm)` : test.outcome;
    }),
  };
}

/**
 * The confirmation in time: each side's fresh trials of a request run through the round's paired
 * turns (pipeline/gate/paired-turns.ts, as the pipeline runs them), `concurrency` workers a side.
 * A case-trial's moment is its start (counted over the gate's fresh case-trials) plus a uniform
 * share of the `concurrency` starts it overlaps while in flight; the shift applies from the drift's
 * moment on. The moments: before the screen (every fresh trial, and the screen); where one
 * side's block of the first round would end; at a random point of round 1, 2 or 3; at the start
 * of round 2, 3 or 4 (a round the gate may never reach: then nothing changes).
 */
async function confirmInTime(
  confirmation: Parameters<typeof confirmCandidate>[0],
  input: { timing: NonNullable<Scenario['timing']>; shift: number; chances: Record<'baseline' | 'candidate', Map<string, number>>; firstTrial: number; random: () => number },
) {
  const { timing, random } = input;
  const concurrency = timing.concurrency;
  const targetRound = timing.moment === 'inside a round' ? 1 + Math.floor(3 * random()) : 2 + Math.floor(3 * random());
  let at = timing.moment === 'before the screen' ? 0 : Number.POSITIVE_INFINITY;
  let until = timing.outage ? at : Number.POSITIVE_INFINITY;
  let clock = 0;
  let round = 0;
  let lastTurns: unknown = null;
  const next = new Map<string, number>();
  const chanceAt = (side: 'baseline' | 'candidate', id: string, moment: number): number => {
    if (timing.outage) return moment >= at && moment < until ? 0 : (input.chances[side].get(id) ?? 0);
    return clamp((input.chances[side].get(id) ?? 0) + (moment >= at ? input.shift : 0));
  };
  return confirmCandidate(
    confirmation,
    async (request, turns) => {
      const block = request.caseIds.length * request.trials;
      if (turns !== lastTurns) {
        lastTurns = turns;
        round += 1;
        const landing =
          timing.moment === 'between the two sides' && round === 1 ? clock + block
          : timing.moment === 'inside a round' && round === targetRound ? clock + Math.floor(2 * block * random())
          : timing.moment === 'between rounds' && round === targetRound ? clock
          : null;
        if (landing !== null && at === Number.POSITIVE_INFINITY) at = landing;
        if (landing !== null && timing.outage) until = at + block;
      }
      const work = request.caseIds.flatMap((id) => {
        const key = `${request.side}:${id}`;
        const first = next.get(key) ?? input.firstTrial;
        next.set(key, first + request.trials);
        return Array.from({ length: request.trials }, (_, t) => ({ id, trial: first + t }));
      });
      const out: ReturnType<typeof sampleRecords> = [];
      let taken = 0;
      const worker = async (): Promise<void> => {
        while (taken < work.length) {
          const item = work[taken++] as { id: string; trial: number };
          const end = await turns.take();
          const moment = clock++ + concurrency * random();
          out.push(...sampleRecords(new Map([[item.id, chanceAt(request.side, item.id, moment)]]), [item.id], 1, item.trial, random));
          // Still in flight while the other side's turn starts.
          await Promise.resolve();
          end();
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, work.length) }, worker));
      return { cases: summarizeCases(out), runs: [] };
    },
    { concurrency, seed: String(random()) },
  );
}

const repeat = (count: number, change: Change): Change[] => Array.from({ length: count }, () => change);

/** The cells the gate is held to: an unchanged agent under drift, and the changes it must see. */
export const SCENARIOS: readonly Scenario[] = [
  { name: 'A/A', shift: 0, changes: [], intent: false },
  { name: 'A/A, drift -0.2', shift: -0.2, changes: [], intent: false },
  { name: 'A/A, drift -0.1', shift: -0.1, changes: [], intent: false },
  { name: 'A/A, drift +0.1', shift: 0.1, changes: [], intent: false },
  { name: 'A/A, drift +0.2', shift: 0.2, changes: [], intent: false },
  { name: 'one case .9 → 0', shift: 0, changes: repeat(1, { before: 0.9, after: 0 }), intent: false },
  { name: 'one case .75 → 0', shift: 0, changes: repeat(1, { before: 0.75, after: 0 }), intent: false },
  { name: 'one case .9 → .2', shift: 0, changes: repeat(1, { before: 0.9, after: 0.2 }), intent: false },
  { name: 'three cases .9 → 0', shift: 0, changes: repeat(3, { before: 0.9, after: 0 }), intent: false },
  { name: 'five cases .9 → .5', shift: 0, changes: repeat(5, { before: 0.9, after: 0.5 }), intent: false },
  { name: 'three cases .2 → .8, with an intent', shift: 0, changes: repeat(3, { before: 0.2, after: 0.8 }), intent: true },
];

/** The moments a provider change can land at, the concurrencies they are measured at, and the A/A cells they make. */
export const MOMENTS: readonly Moment[] = ['before the screen', 'between the two sides', 'inside a round', 'between rounds'];
export const CONCURRENCIES: readonly number[] = [1, 2, 3, 16];
export function momentScenarios(concurrencies: readonly number[] = CONCURRENCIES): Scenario[] {
  return concurrencies.flatMap((concurrency) => [
    ...MOMENTS.flatMap((moment) =>
      [-0.2, 0.2].map((shift): Scenario => ({ name: `A/A, drift ${shift > 0 ? '+' : ''}${shift} ${moment}, concurrency ${concurrency}`, shift, changes: [], intent: false, timing: { moment, concurrency } })),
    ),
    ...(['between the two sides', 'inside a round'] as const).map((moment): Scenario => ({
      name: `A/A, outage graded as failures ${moment}, concurrency ${concurrency}`,
      shift: 0,
      changes: [],
      intent: false,
      timing: { moment, concurrency, outage: true },
    })),
  ]);
}

/** The cells of a mature agent (MATURE_MIX, N = 200): soft regressions of cases that nearly always pass. */
export const MATURE_SCENARIOS: readonly Scenario[] = [
  { name: 'A/A', shift: 0, changes: [], intent: false },
  { name: 'one case .97 → .5', shift: 0, changes: repeat(1, { before: 0.97, after: 0.5 }), intent: false },
  { name: 'three cases .97 → .6', shift: 0, changes: repeat(3, { before: 0.97, after: 0.6 }), intent: false },
];
