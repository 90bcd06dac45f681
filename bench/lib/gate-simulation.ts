// One simulated gate decision through the gate's own code and its loop (pipeline/gate/confirmation-loop.ts): a stochastic agent with known per-case
// pass chances, the baseline's stored records, an optional drift of the provider between those
// records and the candidate's run, an injected change, and every fresh trial the planner asks for.
// Shared by bench/gate-trust.ts (fresh randomness) and the unit tests (fixed seeds).
import type { ChangeIntent } from '../../src/domain/release-candidate.ts';
import { summarizeCases } from '../../src/domain/case-summary.ts';
import type { ComparePolicy } from '../../src/stages/gate/compare.ts';
import { confirmCandidate } from '../../src/pipeline/gate/confirmation-loop.ts';
import { caseId, drawAgent, sampleRecords, type Mix } from './simulated-agent.ts';

/** Cases whose pass chance changes: each from `before` (baseline) to `after` (candidate). */
export interface Change {
  readonly before: number;
  readonly after: number;
}

export interface Scenario {
  readonly name: string;
  /** Added to every case's pass chance, both versions, between the baseline's records and the candidate's run. */
  readonly shift: number;
  readonly changes: readonly Change[];
  /** The RC states an intent: then it must show a confirmed fix. */
  readonly intent: boolean;
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
  const candidate = summarizeCases(sampleRecords(now.candidate, ids, trials, 0, random));
  const next = new Map<string, number>();
  const { comparison: gated } = await confirmCandidate(
    { baseline, candidate, policy, noise: { variedCases: 0 }, intent: scenario.intent ? INTENT : null, screeningTrials: trials, records },
    async (request) => {
      const out = [];
      for (const id of request.caseIds) {
        const key = `${request.side}:${id}`;
        const first = next.get(key) ?? records * trials;
        next.set(key, first + request.trials);
        out.push(...sampleRecords(now[request.side], [id], request.trials, first, random));
      }
      return { cases: summarizeCases(out), runs: [] };
    },
  );
  const dropped = scenario.changes.flatMap((c, i) => (c.after < c.before ? [caseId(i)] : [])).sort();
  const named = [...gated.decision.p2f].sort();
  return {
    verdict: gated.decision.verdict,
    namedExactly: dropped.length === named.length && dropped.every((id, i) => named[i] === id),
    named: named.some((id) => dropped.includes(id)),
    namedDropped: named.filter((id) => dropped.includes(id)).length,
    namedOthers: named.filter((id) => !dropped.includes(id)).length,
    runsPerCase: (input.cases * trials + gated.confirmationTrials.baseline + gated.confirmationTrials.candidate) / input.cases,
    fixes: gated.decision.f2p.length,
  };
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
