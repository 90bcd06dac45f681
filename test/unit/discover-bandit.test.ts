import { describe, expect, it } from 'vitest';
import type { Arm, MemberEvidence, RoundDocument } from '../../src/domain/discover.ts';
import { bestTeam, bySuccessRate, crpDraw, memberEvidence, newArm, rankByUcb, topK, ucb1, updateArms } from '../../src/stages/discover/bandit.ts';
import { budgetStop, discoverCeiling } from '../../src/stages/discover/ceiling.ts';
import { sampleWithout, seededDraw, type Draw } from '../../src/stages/discover/draw.ts';
import { replayRounds } from '../../src/stages/discover/replay.ts';

const arm = (name: string, pulls: number, used: number, helpful: number, passed = 0): Arm => ({ name, pulls, used, helpful, passed, mean: used === 0 ? 0 : helpful / used });
/** A draw that answers from a table by label (scripted randomness for the CRP). */
const scripted = (values: Record<string, number>): Draw => (label) => {
  const value = values[label];
  if (value === undefined) throw new Error(`no scripted draw for ${label}`);
  return value;
};

describe('UCB1', () => {
  it.each([
    { case: 'never pulled: +∞, whatever t', pulls: 0, mean: 0, t: 5, ucb: Number.POSITIVE_INFINITY },
    { case: 'never pulled at round 1', pulls: 0, mean: 0.9, t: 1, ucb: Number.POSITIVE_INFINITY },
    { case: 'at t = 1 the bonus is 0 (ln 1)', pulls: 1, mean: 0.4, t: 1, ucb: 0.4 },
    { case: 'μ̂ + √(2 ln t / n)', pulls: 2, mean: 0.5, t: 3, ucb: 0.5 + Math.sqrt((2 * Math.log(3)) / 2) },
    { case: 'more pulls, smaller bonus', pulls: 8, mean: 0.5, t: 3, ucb: 0.5 + Math.sqrt((2 * Math.log(3)) / 8) },
    { case: 'a useless member keeps only its bonus', pulls: 4, mean: 0, t: 10, ucb: Math.sqrt((2 * Math.log(10)) / 4) },
  ])('$case', ({ pulls, mean, t, ucb }) => {
    expect(ucb1({ pulls, mean }, t)).toBeCloseTo(ucb, 12);
    if (ucb === Number.POSITIVE_INFINITY) expect(ucb1({ pulls, mean }, t)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('top-K by UCB1', () => {
  it.each([
    { case: 'all unpulled: the archive order', arms: [arm('a', 0, 0, 0), arm('b', 0, 0, 0), arm('c', 0, 0, 0)], t: 1, k: 2, team: ['a', 'b'] },
    { case: 'an unpulled member goes first', arms: [arm('a', 3, 6, 6), arm('b', 3, 6, 3), arm('new', 0, 0, 0)], t: 4, k: 2, team: ['new', 'a'] },
    { case: 'higher μ̂ at equal pulls', arms: [arm('a', 3, 6, 3), arm('b', 3, 6, 6), arm('c', 3, 6, 0)], t: 4, k: 2, team: ['b', 'a'] },
    { case: 'fewer pulls win on a bonus', arms: [arm('a', 9, 10, 9), arm('b', 1, 10, 8)], t: 10, k: 1, team: ['b'] },
    { case: 'equal scores: fewer pulls, then the archive order', arms: [arm('a', 2, 4, 2), arm('b', 2, 4, 2), arm('c', 1, 0, 0)], t: 2, k: 2, team: ['a', 'b'] },
    { case: 'K above the archive: everyone', arms: [arm('a', 1, 1, 1), arm('b', 1, 1, 0)], t: 2, k: 5, team: ['a', 'b'] },
  ])('$case', ({ arms, t, k, team }) => {
    expect(topK(arms, t, k)).toEqual(team);
  });

  it('ranks ties deterministically whatever order equal arms are scored in', () => {
    const arms = [arm('x', 0, 0, 0), arm('y', 0, 0, 0), arm('z', 2, 2, 2)];
    expect(rankByUcb(arms, 3).map((s) => s.name)).toEqual(['x', 'y', 'z']);
    expect(rankByUcb([...arms].reverse(), 3).map((s) => s.name)).toEqual(['y', 'x', 'z']);
  });
});

describe('the Chinese restaurant process draw', () => {
  it.each([
    { case: 'θ = 1, 3 members: P = 1/4, a draw under it grows', theta: 1, size: 3, u: 0.2499, p: 0.25, grew: true },
    { case: 'a draw at P does not grow (strictly below)', theta: 1, size: 3, u: 0.25, p: 0.25, grew: false },
    { case: 'an empty archive always grows', theta: 0.5, size: 0, u: 0.999, p: 1, grew: true },
    { case: 'θ = 2, 6 members: P = 1/4', theta: 2, size: 6, u: 0.3, p: 0.25, grew: false },
  ])('$case', ({ theta, size, u, p, grew }) => {
    const outcome = crpDraw({ theta, archiveSize: size, round: 7 }, scripted({ 'crp:7': u }));
    expect(outcome).toEqual({ probability: p, draw: u, grew });
  });

  it('the seeded draw is a function of (seed, label): reproducible, different per label and per seed, in [0, 1)', () => {
    const seven = seededDraw(7);
    expect(seven('crp:1')).toBe(seededDraw(7)('crp:1'));
    expect(seven('crp:1')).not.toBe(seven('crp:2'));
    expect(seven('crp:1')).not.toBe(seededDraw(8)('crp:1'));
    const draws = Array.from({ length: 4000 }, (_, i) => seven(`n:${i}`));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    // Roughly uniform: each quarter holds about a quarter of the draws.
    for (let q = 0; q < 4; q += 1) {
      const share = draws.filter((d) => d >= q / 4 && d < (q + 1) / 4).length / draws.length;
      expect(share).toBeGreaterThan(0.2);
      expect(share).toBeLessThan(0.3);
    }
    // With θ = 1 and 3 members, seed 7 grows the archive in the rounds whose draw is below 1/4, and only in those.
    const grown = [1, 2, 3, 4, 5, 6].filter((t) => crpDraw({ theta: 1, archiveSize: 3, round: t }, seven).grew);
    expect(grown).toEqual([1, 2, 3, 4, 5, 6].filter((t) => seven(`crp:${t}`) < 0.25));
  });

  it('samples a design split without replacement, in the split order, the same for the same seed', () => {
    const ids = Array.from({ length: 44 }, (_, i) => `train-${String(i + 1).padStart(3, '0')}`);
    const split = sampleWithout(ids, 12, seededDraw(1), 'design');
    expect(split).toHaveLength(12);
    expect(new Set(split).size).toBe(12);
    expect([...split].sort()).toEqual(split);
    expect(sampleWithout(ids, 12, seededDraw(1), 'design')).toEqual(split);
    expect(sampleWithout(ids, 12, seededDraw(2), 'design')).not.toEqual(split);
    expect(sampleWithout(ids.slice(0, 5), 12, seededDraw(1), 'design')).toEqual(ids.slice(0, 5));
  });
});

describe('arm statistics', () => {
  it('a round pulls each team member once and adds its evidence; the others do not move', () => {
    const arms = [arm('a', 1, 2, 1, 2), arm('b', 0, 0, 0), arm('c', 2, 3, 3, 1)];
    const evidence: MemberEvidence[] = [
      { name: 'a', calls: 5, used: 4, helpful: 4, passed: 1 },
      { name: 'b', calls: 0, used: 0, helpful: 0, passed: 0 },
    ];
    expect(updateArms(arms, ['a', 'b'], evidence)).toEqual([
      { name: 'a', pulls: 2, used: 6, helpful: 5, passed: 3, mean: 5 / 6 },
      { name: 'b', pulls: 1, used: 0, helpful: 0, passed: 0, mean: 0 },
      arms[2],
    ]);
  });

  it('BOAD’s hindsight label: a trajectory counts as helpful when any of the member’s calls in it helped', () => {
    const evidence = memberEvidence(
      ['lookup', 'notes'],
      [
        { pass: true, calls: new Map([['lookup', [false, true]], ['notes', [false]]]) },
        { pass: false, calls: new Map([['lookup', [false]], ['notes', []]]) },
        { pass: true, calls: new Map([['notes', [false]]]) },
      ],
    );
    expect(evidence).toEqual([
      { name: 'lookup', calls: 3, used: 2, helpful: 1, passed: 1 },
      { name: 'notes', calls: 2, used: 2, helpful: 0, passed: 2 },
    ]);
  });

  it('the proposed team is ranked by helpfulness, not by success rate: a free rider ranks first by success and last by help', () => {
    const arms = [arm('rider', 5, 10, 1, 10), arm('worker', 5, 10, 9, 5), arm('fixer', 5, 10, 7, 6), arm('unused', 5, 0, 0, 0)];
    expect(bestTeam(arms, 2)).toEqual(['worker', 'fixer']);
    expect(bySuccessRate(arms)[0]).toBe('rider');
    expect(bestTeam(arms, 4).at(-1)).toBe('unused');
    // Equal helpfulness: the more evidence first.
    expect(bestTeam([arm('few', 1, 2, 2), arm('many', 3, 8, 8)], 1)).toEqual(['many']);
  });
});

describe('the state rebuilt from the rounds', () => {
  /** Plays rounds with the stage functions and scripted evidence, recording them as discover does. */
  function play(seed: number, rounds: number): { members: Array<{ name: string; order: number; origin: 'release' | 'writer'; round: number }>; docs: RoundDocument[]; arms: Arm[] } {
    const draw = seededDraw(seed);
    const members: Array<{ name: string; order: number; origin: 'release' | 'writer'; round: number }> = ['a', 'b', 'c'].map((name, order) => ({ name, order, origin: 'release', round: 1 }));
    let arms = members.map((m) => newArm(m.name));
    const docs: RoundDocument[] = [];
    for (let t = 1; t <= rounds; t += 1) {
      const archiveSize = members.length;
      const crp = crpDraw({ theta: 1.5, archiveSize, round: t }, draw);
      let added: string | null = null;
      if (crp.grew) {
        added = `w${t}`;
        members.push({ name: added, order: members.length, origin: 'writer', round: t });
        arms = [...arms, newArm(added)];
      }
      const scores = rankByUcb(arms, t);
      const team = scores.slice(0, 2).map((s) => s.name);
      const evidence = team.map((name, i) => ({ name, calls: 3, used: 3 - i, helpful: name === 'a' ? 0 : 2 - i, passed: 1 }));
      arms = updateArms(arms, team, evidence);
      docs.push({
        schema: 'agentdevel/discover-round@1',
        round: t,
        seed,
        design: { cases: ['x', 'y'], trials: 1 },
        theta: 1.5,
        top: 2,
        crp: { archiveSize, probability: crp.probability, draw: crp.draw, grew: crp.grew, added, warmup: [] },
        scores: scores.map((s) => ({ name: s.name, ucb: Number.isFinite(s.ucb) ? s.ucb : null })),
        team,
        runId: `run-${t}`,
        passRate: 0.5,
        evidence,
        symptoms: [],
        cost: { caseTrials: 2, judgeRequests: 2, writerRequests: added ? 1 : 0, ledger: { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 } },
        simulated: true,
      });
    }
    return { members, docs, arms };
  }

  it('replays to the arms the rounds produced, and names a round whose recorded choice its evidence does not imply', () => {
    const { members, docs, arms } = play(11, 8);
    expect(members.length).toBeGreaterThan(3); // seed 11 grows the archive (θ = 1.5)
    const replay = replayRounds('bp', members, docs);
    expect(replay.problems).toEqual([]);
    expect(replay.state.arms).toEqual(arms);
    expect(replay.state).toMatchObject({ blueprint: 'bp', seed: 11, round: 8, design: { cases: ['x', 'y'], trials: 1 } });

    const tampered = docs.map((d) => (d.round === 3 ? { ...d, team: [...d.team].reverse() } : d));
    expect(replayRounds('bp', members, tampered).problems).toEqual([expect.stringMatching(/^round 3: the top 2 by UCB1 are .*; the round ran /)]);
    const redrawn = docs.map((d) => (d.round === 2 ? { ...d, crp: { ...d.crp, draw: 0.999 } } : d));
    expect(replayRounds('bp', members, redrawn).problems).toEqual([expect.stringMatching(/^round 2: the seed draws /)]);
  });
});

describe('the ceiling and the budget', () => {
  it('states the worst case of a session', () => {
    expect(discoverCeiling({ rounds: 6, top: 3, designCases: 12, trials: 1, warmupRounds: 2, warmupCases: 3 })).toEqual({
      perRound: 18,
      caseTrials: 108,
      judgeRequests: 216,
      writerRequests: 19,
    });
    // Warm-up cases are sampled from the design split: never more than it has.
    expect(discoverCeiling({ rounds: 1, top: 1, designCases: 2, trials: 2, warmupRounds: 1, warmupCases: 5 }).perRound).toBe(8);
  });

  it.each([
    { case: 'no budget', budget: null, spent: { caseTrials: 1000, usd: 5, dearestRoundUsd: 1 }, stop: null },
    { case: 'case-trials: the next round fits', budget: { kind: 'caseTrials' as const, amount: 40 }, spent: { caseTrials: 22, usd: 0, dearestRoundUsd: 0 }, stop: null },
    { case: 'case-trials: the next round might not', budget: { kind: 'caseTrials' as const, amount: 40 }, spent: { caseTrials: 23, usd: 0, dearestRoundUsd: 0 }, stop: /23 of 40 case-trials spent, and a round may take 18/ },
    { case: 'dollars: spent', budget: { kind: 'usd' as const, amount: 1 }, spent: { caseTrials: 0, usd: 1, dearestRoundUsd: 0.2 }, stop: /\$1\.0000 of \$1\.00 spent$/ },
    { case: 'dollars: the dearest round would pass it', budget: { kind: 'usd' as const, amount: 1 }, spent: { caseTrials: 0, usd: 0.7, dearestRoundUsd: 0.4 }, stop: /dearest round so far cost \$0\.4000/ },
    { case: 'dollars: room left', budget: { kind: 'usd' as const, amount: 1 }, spent: { caseTrials: 0, usd: 0.5, dearestRoundUsd: 0.4 }, stop: null },
  ])('$case', ({ budget, spent, stop }) => {
    const said = budgetStop(budget, spent, 18);
    if (stop === null) expect(said).toBeNull();
    else expect(said).toMatch(stop);
  });
});
