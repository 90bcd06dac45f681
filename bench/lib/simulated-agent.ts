// A simulated stochastic agent for measuring the gate: each case passes each trial with a known
// chance, independently. Shared by bench/gate-trust.ts (fresh randomness) and the unit tests
// (fixed seeds). It produces the same CaseRecord shape a real run stores.
import type { CaseRecord } from '../../src/domain/record.ts';

/** mulberry32: a small, fast, seedable generator; good enough for Bernoulli draws. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Mix {
  readonly name: string;
  /** Draws one case's pass chance. */
  draw(random: () => number): number;
}

/** 40% always pass, 20% never pass, 40% with a pass chance between 0.1 and 0.9. */
export const FIRST_MIX: Mix = {
  name: '40% always, 20% never, 40% U(0.1,0.9)',
  draw: (random) => {
    const u = random();
    return u < 0.4 ? 1 : u < 0.6 ? 0 : 0.1 + 0.8 * random();
  },
};

/** Most cases at pass chances 0.25–0.75: 70% U(0.25,0.75), 20% always pass, 10% never pass. */
export const MIDDLE_MIX: Mix = {
  name: '70% U(0.25,0.75), 20% always, 10% never',
  draw: (random) => {
    const u = random();
    return u < 0.2 ? 1 : u < 0.3 ? 0 : 0.25 + 0.5 * random();
  },
};

/** Every case passes half the time: the costliest suite to confirm, since every case moves often. */
export const HALF_MIX: Mix = { name: 'all p = 0.5', draw: () => 0.5 };

/** Beta(1/2, 1/2): most cases near always or never, some anywhere between. */
export const BETA_MIX: Mix = {
  name: 'Beta(0.5, 0.5)',
  // The arcsine law: sin²(πU/2) is Beta(1/2, 1/2).
  draw: (random) => Math.sin((Math.PI * random()) / 2) ** 2,
};

/**
 * A real agent's per-case pass rates: gpt-4o on tau-bench's airline domain, 50 tasks × 4 trials,
 * as published in sierra-research/tau-bench (historical_trajectories/gpt-4o-airline.json): the
 * share of each task's trials with reward 1. A case draws one of them.
 */
export const TAU_AIRLINE_GPT4O = [
  0, 0.25, 0.25, 0, 0, 0.25, 0.25, 0.25, 0, 0, 0, 0.25, 1, 0.5, 0, 0.5, 0.25, 0.25, 1, 0, 1, 0.75, 0, 0, 1, 0, 0.5, 0.5, 0, 0.25, 0.5, 0.5, 0, 0, 0.75, 1, 1, 0.75, 1,
  0.25, 0.75, 0.5, 1, 0.25, 0.5, 0.5, 0.5, 0.25, 1, 1,
] as const;
export const TAU_MIX: Mix = {
  name: "tau-bench airline, gpt-4o's per-task rates",
  draw: (random) => TAU_AIRLINE_GPT4O[Math.floor(random() * TAU_AIRLINE_GPT4O.length)] as number,
};

/** A mature agent, as most in production look: 85% of cases pass 97% of the time, 10% pass 70%, 5% pass 20%. */
export const MATURE_MIX: Mix = {
  name: 'mature: 85% p = .97, 10% p = .7, 5% p = .2',
  draw: (random) => {
    const u = random();
    return u < 0.85 ? 0.97 : u < 0.95 ? 0.7 : 0.2;
  },
};

export const caseId = (i: number): string => `case-${String(i).padStart(4, '0')}`;

export function drawAgent(mix: Mix, cases: number, random: () => number): number[] {
  return Array.from({ length: cases }, () => mix.draw(random));
}

/** One record per case-trial, as a run of the agent with these pass chances would store. */
export function sampleRecords(chances: ReadonlyMap<string, number>, caseIds: readonly string[], trials: number, firstTrial: number, random: () => number): CaseRecord[] {
  const records: CaseRecord[] = [];
  for (const id of caseIds) {
    const chance = chances.get(id) ?? 0;
    for (let t = 0; t < trials; t += 1) {
      const pass = random() < chance;
      records.push({
        caseId: id,
        trial: firstTrial + t,
        status: 'ok',
        output: null,
        traceRef: '',
        scorer: null,
        critic: { pass, label: pass ? 'ok' : 'wrong_outcome', description: '' },
        pass,
        error: null,
      });
    }
  }
  return records;
}

/** Wilson score interval for a binomial proportion (95% by default). */
export function wilson(successes: number, n: number, z = 1.959964): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const p = successes / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
