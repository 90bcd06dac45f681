// The bandit of `discover` (BOAD, Algorithm 1), as pure functions over the arm statistics:
// UCB1 scores, the top-K team of a round, the Chinese restaurant process's draw, the update
// from a round's evidence, and the final team ranked by hindsight helpfulness.
import type { Arm, MemberEvidence } from '../../domain/discover.ts';
import type { Draw } from './draw.ts';

/**
 * UCB1 of an arm at round t (1-based): μ̂ + √(2 ln t / n), and +∞ before its first pull (so
 * every member is tried once before any is tried twice).
 */
export function ucb1(arm: Pick<Arm, 'pulls' | 'mean'>, t: number): number {
  if (arm.pulls === 0) return Number.POSITIVE_INFINITY;
  return arm.mean + Math.sqrt((2 * Math.log(t)) / arm.pulls);
}

export interface Scored {
  readonly name: string;
  readonly ucb: number;
}

/**
 * The arms by UCB1 at round t, best first. Ties (every never-pulled arm, or equal scores) go to
 * the fewer pulls, then to the member that joined the archive first: deterministic, and the
 * order `arms` is given in is the archive's.
 */
export function rankByUcb(arms: readonly Arm[], t: number): Scored[] {
  return arms
    .map((arm, index) => ({ name: arm.name, ucb: ucb1(arm, t), pulls: arm.pulls, index }))
    .sort((a, b) => (a.ucb === b.ucb ? a.pulls - b.pulls || a.index - b.index : b.ucb - a.ucb))
    .map(({ name, ucb }) => ({ name, ucb }));
}

/** The round's team: the top K by UCB1 (all of them when the archive has K or fewer). */
export function topK(arms: readonly Arm[], t: number, k: number): string[] {
  return rankByUcb(arms, t)
    .slice(0, k)
    .map((s) => s.name);
}

/**
 * The Chinese restaurant process of one round: a new member with probability θ / (θ + n), where
 * n is the archive's size before the round (BOAD's |Γ_{t-1}|). The draw is the seed's, labelled
 * by the round, so it can be recomputed from the recorded seed.
 */
export function crpDraw(input: { readonly theta: number; readonly archiveSize: number; readonly round: number }, draw: Draw): { probability: number; draw: number; grew: boolean } {
  const probability = input.theta / (input.theta + input.archiveSize);
  const u = draw(`crp:${input.round}`);
  return { probability, draw: u, grew: u < probability };
}

/** A fresh arm for a member that joins the archive. */
export const newArm = (name: string): Arm => ({ name, pulls: 0, used: 0, helpful: 0, passed: 0, mean: 0 });

/** The arms after a round: each team member is pulled once and adds its evidence; the others stay as they were. */
export function updateArms(arms: readonly Arm[], team: readonly string[], evidence: readonly MemberEvidence[]): Arm[] {
  return arms.map((arm) => {
    if (!team.includes(arm.name)) return arm;
    const seen = evidence.find((e) => e.name === arm.name);
    const used = arm.used + (seen?.used ?? 0);
    const helpful = arm.helpful + (seen?.helpful ?? 0);
    return { name: arm.name, pulls: arm.pulls + 1, used, helpful, passed: arm.passed + (seen?.passed ?? 0), mean: used === 0 ? 0 : helpful / used };
  });
}

/**
 * A member's part of a round from its judged trajectories: per case-trial, its calls and
 * whether any of them was judged helpful (BOAD's ℓ = 1), and whether the case-trial passed.
 */
export function memberEvidence(
  team: readonly string[],
  trajectories: ReadonlyArray<{ readonly pass: boolean; readonly calls: ReadonlyMap<string, readonly boolean[]> }>,
): MemberEvidence[] {
  return team.map((name) => {
    let calls = 0;
    let used = 0;
    let helpful = 0;
    let passed = 0;
    for (const trajectory of trajectories) {
      const verdicts = trajectory.calls.get(name) ?? [];
      if (verdicts.length === 0) continue;
      calls += verdicts.length;
      used += 1;
      if (verdicts.some(Boolean)) helpful += 1;
      if (trajectory.pass) passed += 1;
    }
    return { name, calls, used, helpful, passed };
  });
}

/**
 * The team to propose: `size` members ranked by hindsight helpfulness (μ̂), not by success rate
 * (BOAD's answer to free riders). Members never used rank last; ties go to the more evidence
 * (used), then to the archive's order.
 */
export function bestTeam(arms: readonly Arm[], size: number): string[] {
  return rankArms(arms, (a) => (a.used === 0 ? -1 : a.mean))
    .slice(0, size)
    .map((a) => a.name);
}

/** Success rate (passed / used) ranking, beside the helpfulness one, to show free riders. */
export function bySuccessRate(arms: readonly Arm[]): string[] {
  return rankArms(arms, (a) => (a.used === 0 ? -1 : a.passed / a.used)).map((a) => a.name);
}

function rankArms(arms: readonly Arm[], figure: (arm: Arm) => number): Arm[] {
  return arms
    .map((arm, index) => ({ arm, index, value: figure(arm) }))
    .sort((a, b) => b.value - a.value || b.arm.used - a.arm.used || a.index - b.index)
    .map((r) => r.arm);
}
