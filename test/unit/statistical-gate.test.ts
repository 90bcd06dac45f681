import { describe, expect, it } from 'vitest';
import type { CaseRecord } from '../../src/domain/record.ts';
import { compareRuns, gateCandidateRuns, type ComparePolicy, type ConfirmationRunner } from '../../src/stages/gate/compare.ts';
import { addConfirmation, caseState, designConfirmation, nextStep, type CaseTally, type Tallies } from '../../src/stages/gate/confirmation.ts';
import { summarizeCases } from '../../src/stages/gate/flips.ts';
import { screen } from '../../src/stages/gate/screening.ts';
import { boschlooDropPValue, boschlooFloor } from '../../src/stages/gate/boschloo.ts';
import { fisherDropPValue, fisherFloor, holmAdjust, splitAlpha, trialsToReach } from '../../src/stages/gate/significance.ts';
import { caseId, drawAgent, FIRST_MIX, sampleRecords, seededRandom } from '../../bench/lib/simulated-agent.ts';

const policy: ComparePolicy = {
  policy: 'auto',
  maxP2F: 0,
  maxP2FRate: 0.02,
  minF2P: 1,
  minHitRate: 0.5,
  maxUngradedShare: 0.1,
  alpha: 0.05,
  maxSignificantRegressions: 0,
  maxConfirmTrials: 10,
};
const quiet = { variedCases: 0 };

/** Records from trial strings per case: "1101" = pass, pass, fail, pass. */
function records(outcomes: Record<string, string>, label = 'x', firstTrial = 0): CaseRecord[] {
  return Object.entries(outcomes).flatMap(([id, trials]) =>
    [...trials].map((t, i) => ({
      caseId: id,
      trial: firstTrial + i,
      status: t === 'I' ? ('infra_error' as const) : ('ok' as const),
      output: null,
      traceRef: '',
      scorer: null,
      critic: t === 'I' ? null : { pass: t === '1', label: t === '1' ? 'ok' : label, description: '' },
      pass: t === 'I' ? null : t === '1',
      error: null,
    })),
  );
}

/** Per-case summaries of such records: what the gate reads of a run. */
const summaries = (outcomes: Record<string, string>, label = 'x', firstTrial = 0) => summarizeCases(records(outcomes, label, firstTrial));

const side = (passes: number, graded: number, attempts = graded) => ({ passes, graded, attempts });
const tally = (b: [number, number], c: [number, number]): CaseTally => ({ baseline: side(...b), candidate: side(...c) });

/** A runner that answers from scripted fresh outcomes per side and case ("111111"), in order. */
function scriptedRunner(script: Record<'baseline' | 'candidate', Record<string, string>>): ConfirmationRunner & { asked: Array<{ side: string; trials: number; caseIds: readonly string[] }> } {
  const used = new Map<string, number>();
  const asked: Array<{ side: string; trials: number; caseIds: readonly string[] }> = [];
  const runner = async (request: { side: 'baseline' | 'candidate'; trials: number; caseIds: readonly string[] }) => {
    asked.push(request);
    return summarizeCases(
      request.caseIds.flatMap((id) => {
        const at = used.get(`${request.side}:${id}`) ?? 0;
        used.set(`${request.side}:${id}`, at + request.trials);
        const outcomes = script[request.side][id] ?? '';
        return records({ [id]: outcomes.slice(at, at + request.trials).padEnd(request.trials, '0') }, 'x', 100 + at);
      }),
    );
  };
  return Object.assign(runner, { asked });
}

describe('exact tests', () => {
  it('the Fisher floor is 1 / C(2k, k), and the trials a level needs follow from it', () => {
    expect(fisherFloor(2)).toBeCloseTo(1 / 6, 12);
    expect(fisherFloor(6)).toBeCloseTo(1 / 924, 12);
    expect(fisherDropPValue(6, 6, 0, 6)).toBeCloseTo(1 / 924, 12);
    expect(trialsToReach(0.05, 10)).toBe(3);
    expect(trialsToReach(0.025, 10)).toBe(4);
    expect(trialsToReach(0.025 / 7, 10)).toBe(6);
    expect(trialsToReach(1e-9, 10)).toBeNull();
  });

  it("Boschloo's unconditional test matches scipy.stats.boschloo_exact from above, within 1%, and never exceeds Fisher", () => {
    // scipy.stats.boschloo_exact([[b, c], [k - b, k - c]], alternative='greater').pvalue
    const scipy: Array<[number, number, number, number]> = [
      [4, 4, 0, 0.00390625],
      [6, 6, 0, 0.000244140625],
      [6, 6, 1, 0.003173828125],
      [6, 5, 1, 0.019287109375],
      [8, 7, 2, 0.0106353759765625],
      [10, 8, 3, 0.020694732666015646],
      [3, 2, 1, 0.34375],
    ];
    for (const [k, b, c, expected] of scipy) {
      const p = boschlooDropPValue(b, c, k);
      expect(p).toBeGreaterThanOrEqual(expected);
      expect(p).toBeLessThan(expected * 1.01);
      expect(p).toBeLessThanOrEqual(fisherDropPValue(b, k, c, k));
    }
    // Its floor, 4^-k, lets a case be confirmed with a trial less a side than Fisher's 1 / C(2k, k).
    expect(trialsToReach(0.025 / 7, 10, boschlooFloor)).toBe(5);
    expect(trialsToReach(0.025 / 7, 10, fisherFloor)).toBe(6);
  });

  it("Holm's adjusted p-values match hand computation", () => {
    // sorted 0.01, 0.02, 0.03, 0.5 → 4·0.01, max(0.04, 3·0.02), max(0.06, 2·0.03), max(0.06, 0.5)
    const adjusted = holmAdjust([0.03, 0.01, 0.5, 0.02]);
    expect(adjusted.map((p) => Number(p.toFixed(6)))).toEqual([0.06, 0.04, 0.5, 0.06]);
  });
});

describe('the confirmation planner (pure)', () => {
  const screening = screen(summarizeCases(records({ a: '1', b: '1', c: '0', d: '1', e: '0' })), summarizeCases(records({ a: '0', b: '0', c: '1', d: '1', e: '0' })));

  it('fixes the families and K from the screening before any fresh trial', () => {
    const design = designConfirmation(screening, policy);
    expect(design.families.map((f) => [f.direction, f.cases, f.trialsPerSide])).toEqual([
      // Two thirds of alpha for each family, split over its cases: 0.0333 / 2 and 0.0333.
      ['regression', ['a', 'b'], trialsToReach(splitAlpha(0.05).family / 2, 10, boschlooFloor)],
      ['fix', ['c'], trialsToReach(splitAlpha(0.05).family, 10, boschlooFloor)],
    ]);
  });

  it('stops a case as soon as its verdict can no longer change, and no sooner', () => {
    // Seven moved cases: the bar is 0.025/7, and K = 5 is the fewest trials that can reach it.
    const bar = 0.025 / 7;
    const k = trialsToReach(bar, 10, boschlooFloor) as number;
    expect(k).toBe(5);
    expect(caseState('regression', tally([0, 0], [0, 0]), k, bar).kind).toBe('live');
    expect(caseState('regression', tally([1, 1], [0, 1]), k, bar).kind).toBe('live');
    // One baseline fail or one candidate pass: 5/5 against 0/5 is out of reach, and 4/5 against 0/5 (p ≈ 0.0108) misses the bar.
    expect(caseState('regression', tally([0, 1], [0, 1]), k, bar)).toMatchObject({ kind: 'decided', significant: false, pBound: 'at_least' });
    expect(caseState('regression', tally([1, 1], [1, 1]), k, bar)).toMatchObject({ kind: 'decided', significant: false });
    expect(caseState('regression', tally([5, 5], [0, 5]), k, bar)).toMatchObject({ kind: 'decided', significant: true, pBound: 'exact', pValue: boschlooDropPValue(5, 0, 5) });
    expect(caseState('fix', tally([0, 5], [5, 5]), k, bar)).toMatchObject({ kind: 'decided', significant: true });
    // K infrastructure errors on a side: it can never reach K graded trials.
    expect(caseState('regression', { baseline: side(1, 1, 6), candidate: side(0, 1) }, k, bar).kind).toBe('incomplete');
  });

  it('asks for the same fresh trials on both sides, doubling what each live case has', () => {
    const design = designConfirmation(screening, policy);
    let tallies: Tallies = new Map();
    const first = nextStep(design, tallies);
    expect(first).toEqual({
      kind: 'run',
      requests: [
        { side: 'baseline', trials: 1, caseIds: ['a', 'b', 'c'] },
        { side: 'candidate', trials: 1, caseIds: ['a', 'b', 'c'] },
      ],
    });
    // a keeps looking like a regression, b shows noise (its baseline fails), c looks like a fix.
    tallies = addConfirmation(tallies, 'baseline', summaries({ a: '1', b: '0', c: '0' }, 'x', 1));
    tallies = addConfirmation(tallies, 'candidate', summaries({ a: '0', b: '0', c: '1' }, 'x', 1));
    const second = nextStep(design, tallies);
    expect(second).toEqual({
      kind: 'run',
      requests: [
        { side: 'baseline', trials: 1, caseIds: ['a', 'c'] },
        { side: 'candidate', trials: 1, caseIds: ['a', 'c'] },
      ],
    });
    tallies = addConfirmation(tallies, 'baseline', summaries({ a: '1', c: '0' }, 'x', 2));
    tallies = addConfirmation(tallies, 'candidate', summaries({ a: '0', c: '1' }, 'x', 2));
    // Both families need K = 3: a and c get their last trial (doubling stops at K).
    expect(nextStep(design, tallies)).toEqual({
      kind: 'run',
      requests: [
        { side: 'baseline', trials: 1, caseIds: ['a', 'c'] },
        { side: 'candidate', trials: 1, caseIds: ['a', 'c'] },
      ],
    });
    tallies = addConfirmation(tallies, 'baseline', summaries({ a: '1', c: '0' }, 'x', 3));
    tallies = addConfirmation(tallies, 'candidate', summaries({ a: '0', c: '1' }, 'x', 3));
    expect(nextStep(design, tallies)).toEqual({ kind: 'decide' });
  });
});

describe('the statistical gate (each cause of false rejection pinned)', () => {
  it('cause 1: 2/2 → 0/2 is no evidence, so it is not a regression on its own', () => {
    const { decision } = compareRuns({ baseline: summaries({ a: '11', b: '11', c: '10' }), candidate: summaries({ a: '00', b: '11', c: '10' }), policy, noise: quiet, intent: null });
    expect(decision.tests.find((t) => t.caseId === 'a')?.pValue).toBeCloseTo(1 / 6, 12);
    expect(decision.p2f).toEqual([]);
    expect(decision.verdict).toBe('accept');
  });

  it('cause 2: per-case tests are corrected for the family: a p below alpha is not enough among ten moved cases', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `c${i}`);
    const baseline = summaries(Object.fromEntries(ids.map((id) => [id, '1'])));
    const candidate = summaries(Object.fromEntries(ids.map((id) => [id, '0'])));
    // Every moved case gets 4/4 → 0/4 fresh: p < 0.05, but the bar is 0.0333/10, out of reach of 4 trials a side.
    const capped = { ...policy, maxConfirmTrials: 4 };
    const runner = scriptedRunner({ baseline: Object.fromEntries(ids.map((id) => [id, '1111'])), candidate: Object.fromEntries(ids.map((id) => [id, '0000'])) });
    const gated = await gateCandidateRuns({ baseline, candidate, policy: capped, noise: quiet, intent: null, screeningTrials: 1 }, { runner });
    expect(gated.decision.p2f).toEqual([]);
    expect(gated.decision.tests.every((t) => t.outcome === 'unreachable')).toBe(true);
    expect(gated.decision.warnings.join(' ')).toMatch(/needs more than gate.maxConfirmTrials = 4/);
    // The paired test still rejects ten drops out of ten: p = 2^-10.
    expect(gated.decision.verdict).toBe('reject');
    expect(gated.decision.aggregate.pValue).toBeCloseTo(2 ** -10, 12);
  });

  it('cause 3: confirmation is equal per side and decided on the fresh trials only', async () => {
    const runner = scriptedRunner({ baseline: { a: '1111' }, candidate: { a: '0000' } });
    const gated = await gateCandidateRuns(
      { baseline: summaries({ a: '1', s1: '1', s2: '1' }), candidate: summaries({ a: '0', s1: '1', s2: '1' }), policy, noise: quiet, intent: null, screeningTrials: 1 },
      { runner },
    );
    const sides = (name: string) => runner.asked.filter((r) => r.side === name).reduce((n, r) => n + r.trials, 0);
    expect(sides('baseline')).toBe(sides('candidate'));
    const test = gated.decision.tests[0];
    expect(test).toMatchObject({ caseId: 'a', screening: { baseline: { passes: 1, graded: 1 }, candidate: { passes: 0, graded: 1 } } });
    // K = 3 for one case at 0.0333: 3/3 against 0/3 on fresh trials alone (the screening trial is not pooled in).
    expect(test?.confirmation).toEqual({ baseline: { passes: 3, graded: 3 }, candidate: { passes: 0, graded: 3 } });
    expect(test?.pValue).toBe(boschlooDropPValue(3, 0, 3));
    expect(gated.decision.p2f).toEqual(['a']);
    expect(gated.decision.verdict).toBe('reject');
  });

  it('cause 3: a tie is not a fail: an even split moves nothing', () => {
    const screening = screen(summarizeCases(records({ a: '10' })), summarizeCases(records({ a: '01' })));
    expect(screening.drops).toEqual([]);
    expect(screening.rises).toEqual([]);
  });

  it('cause 4: auto with one trial per case confirms before it names a regression', async () => {
    const runner = scriptedRunner({ baseline: { a: '01' }, candidate: { a: '10' } });
    const gated = await gateCandidateRuns({ baseline: summaries({ a: '1', b: '1' }), candidate: summaries({ a: '0', b: '1' }), policy, noise: quiet, intent: null, screeningTrials: 1 }, { runner });
    expect(runner.asked.length).toBeGreaterThan(0);
    expect(gated.decision.policy).toBe('stochastic');
    expect(gated.decision.p2f).toEqual([]);
    expect(gated.decision.flaky).toEqual(['a']);
    expect(gated.decision.verdict).toBe('accept');
    // The flaky case stopped after one fresh trial a side.
    expect(gated.confirmationTrials).toEqual({ baseline: 1, candidate: 1 });
  });

  it('cause 5: without a change intent no fixes are required: a run compared with itself is accepted', () => {
    const run = summaries({ a: '1', b: '0', c: '1' });
    for (const name of ['auto', 'flips'] as const) {
      expect(compareRuns({ baseline: run, candidate: run, policy: { ...policy, policy: name }, noise: quiet, intent: null }).decision.verdict).toBe('accept');
    }
  });

  it('cause 7: the pass rate is pass^1, the mean per-case pass share, not a majority with ties failing', () => {
    const { baseline } = compareRuns({ baseline: summaries({ a: '10', b: '1' }), candidate: summaries({ a: '10', b: '1' }), policy, noise: quiet, intent: null });
    expect(baseline.passRate).toBeCloseTo(0.75, 12);
    expect(baseline.passHat['1']).toBeCloseTo(0.75, 12);
  });

  it('confirmed fixes, and only those, count for minF2P and the hit rate', async () => {
    // Two rises: the bar is 0.0333/2, so K = 3 fresh trials a side.
    const runner = scriptedRunner({ baseline: { a: '0000', b: '0' }, candidate: { a: '1111', b: '0' } });
    const gated = await gateCandidateRuns(
      { baseline: summaries({ a: '0', b: '0', s: '1' }, 'tool_error'), candidate: summaries({ a: '1', b: '1', s: '1' }), policy, noise: quiet, intent: { targets: ['tool_error'], rationale: 'r' }, screeningTrials: 1 },
      { runner },
    );
    expect(gated.decision.screening.f2p).toEqual(['a', 'b']);
    expect(gated.decision.f2p).toEqual(['a']);
    expect(gated.decision.rates.hitRate).toBe(1);
    expect(gated.decision.verdict).toBe('accept');
  });

  it('is undecided, never accepting, when a dropped case cannot be confirmed for infrastructure errors', async () => {
    const runner = scriptedRunner({ baseline: { a: '1IIIII' }, candidate: { a: '0IIIII' } });
    const gated = await gateCandidateRuns({ baseline: summaries({ a: '1', b: '1' }), candidate: summaries({ a: '0', b: '1' }), policy, noise: quiet, intent: null, screeningTrials: 1 }, { runner });
    expect(gated.decision.verdict).toBe('undecided');
    expect(gated.decision.checks.find((c) => c.name === 'confirmation')?.ok).toBe(false);
  });

  it('the paper-faithful policy warns when the store has seen this agent be noisy', () => {
    const { decision } = compareRuns({ baseline: summaries({ a: '1' }), candidate: summaries({ a: '1' }), policy: { ...policy, policy: 'flips' }, noise: { variedCases: 3 }, intent: null });
    expect(decision.warnings.join(' ')).toMatch(/this agent is noisy: 3 cases passed and failed within one version/);
  });
});

describe('the gate on simulated noisy agents (fixed seeds: the bench measures rates with fresh ones)', () => {
  async function simulate(seed: number, broken: number) {
    const random = seededRandom(seed);
    const p = drawAgent(FIRST_MIX, 50, random);
    const ids = p.map((_, i) => caseId(i));
    const injected = ids.filter((_, i) => p[i] === 1).slice(0, broken);
    const chances = {
      baseline: new Map(ids.map((id, i) => [id, p[i] as number])),
      candidate: new Map(ids.map((id, i) => [id, injected.includes(id) ? 0 : (p[i] as number)])),
    };
    const next = new Map<string, number>();
    const screening = { baseline: summarizeCases(sampleRecords(chances.baseline, ids, 1, 0, random)), candidate: summarizeCases(sampleRecords(chances.candidate, ids, 1, 0, random)) };
    const gated = await gateCandidateRuns(
      { ...screening, policy, noise: quiet, intent: null, screeningTrials: 1 },
      {
        runner: async (request) =>
          summarizeCases(
            request.caseIds.flatMap((id) => {
              const first = next.get(`${request.side}:${id}`) ?? 1;
              next.set(`${request.side}:${id}`, first + request.trials);
              return sampleRecords(chances[request.side], [id], request.trials, first, random);
            }),
          ),
      },
    );
    return { gated, injected, screening };
  }

  it('rejects few unchanged candidates, where the paper-faithful gate rejects nearly all', async () => {
    let rejected = 0;
    let flipsRejected = 0;
    for (let seed = 1; seed <= 200; seed += 1) {
      const { gated, screening } = await simulate(seed, 0);
      if (gated.decision.verdict === 'reject') rejected += 1;
      if (compareRuns({ ...screening, policy: { ...policy, policy: 'flips' }, noise: quiet, intent: null }).decision.verdict === 'reject') flipsRejected += 1;
    }
    expect(rejected).toBeLessThanOrEqual(10);
    expect(flipsRejected).toBeGreaterThan(180);
  });

  it('rejects three broken always-passing cases and names exactly them, at under 2.5 × N runs', async () => {
    for (let seed = 1; seed <= 20; seed += 1) {
      const { gated, injected } = await simulate(seed, 3);
      expect(gated.decision.verdict).toBe('reject');
      expect(gated.decision.p2f).toEqual(injected);
      expect(50 + gated.confirmationTrials.baseline + gated.confirmationTrials.candidate).toBeLessThan(125);
    }
  });
});
