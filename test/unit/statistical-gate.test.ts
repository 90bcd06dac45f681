import { describe, expect, it } from 'vitest';
import type { CaseRecord } from '../../src/domain/record.ts';
import { decideOnRecordedRuns, type ComparePolicy } from '../../src/stages/gate/compare.ts';
import { confirmCandidate } from '../../src/pipeline/gate/confirmation-loop.ts';
import { addConfirmation, caseState, designCase, designConfirmation, freshPairs, nextStep, UNANIMOUS_WEIGHT, type CaseTally, type ConfirmationRequest, type Tallies } from '../../src/stages/gate/confirmation.ts';
import { summarizeCases, type CaseSummary } from '../../src/stages/gate/flips.ts';
import { screen, selectionOf } from '../../src/stages/gate/screening.ts';
import { boschlooDropPValue } from '../../src/stages/gate/boschloo.ts';
import { designTrials, fixedPower } from '../../src/stages/gate/power.ts';
import { splitAlpha } from '../../src/stages/gate/significance.ts';
import { SCENARIOS, simulatePair } from '../../bench/lib/gate-simulation.ts';
import { FIRST_MIX, seededRandom } from '../../bench/lib/simulated-agent.ts';
import { AUTO_POLICY, caseRecord } from '../helpers/records.ts';

const policy = AUTO_POLICY;
const quiet = { variedCases: 0 };

/** Records from trial strings per case: "1101" = pass, pass, fail, pass; "I" an infrastructure error. */
function records(outcomes: Record<string, string>, label = 'x', firstTrial = 0): CaseRecord[] {
  return Object.entries(outcomes).flatMap(([id, trials]) =>
    [...trials].map((t, i) => caseRecord(id, t === 'I' ? null : t === '1', { trial: firstTrial + i, ...(t !== '1' && t !== 'I' ? { critic: { pass: false, label, description: '' } } : {}) })),
  );
}

/** Per-case summaries of such records: what the gate reads of a run (a baseline's records pooled). */
const summaries = (outcomes: Record<string, string>, label = 'x', firstTrial = 0) => summarizeCases(records(outcomes, label, firstTrial));

const side = (passes: number, graded: number, attempts = graded, first: boolean | null = null) => ({ passes, graded, attempts, first });
const tally = (b: [number, number, number?], c: [number, number, number?]): CaseTally => ({ baseline: side(...b), candidate: side(...c), atLooks: new Map() });

/** A runner that answers from scripted fresh outcomes per side and case ("111111"), in order; past the script, fails. */
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

/** Runs fresh trials of some cases on one side and returns their summaries. */
type ConfirmationRunner = (request: ConfirmationRequest) => Promise<ReadonlyMap<string, CaseSummary>>;

const gate = async (baseline: Record<string, string>, candidate: Record<string, string>, runner: ConfirmationRunner, overrides: Partial<ComparePolicy> = {}, intent: { targets: string[]; rationale: string } | null = null, label = 'x') =>
  (
    await confirmCandidate(
      { baseline: summaries(baseline, label), candidate: summaries(candidate), policy: { ...policy, ...overrides }, noise: quiet, intent, screeningTrials: 1, records: 3 },
      async (request) => ({ cases: await runner(request), runs: [] }),
    )
  ).comparison;

describe('selection from the baseline\'s records', () => {
  it('selects a regression where most baseline trials passed and the candidate did worse, a fix where most failed and it did better', () => {
    const counts = (passes: number, graded: number) => ({ passes, graded });
    const table: Array<[[number, number], [number, number], string | null]> = [
      [[3, 3], [0, 1], 'regression'],
      [[2, 3], [0, 1], 'regression'],
      [[1, 3], [0, 1], null],
      [[3, 3], [1, 1], null],
      [[0, 3], [1, 1], 'fix'],
      [[1, 3], [1, 1], 'fix'],
      [[2, 3], [1, 1], null],
      // Half the baseline's trials passed: neither mostly passing nor mostly failing.
      [[1, 2], [0, 1], null],
      [[1, 2], [1, 1], null],
    ];
    for (const [baseline, candidate, expected] of table) expect(selectionOf(counts(...baseline), counts(...candidate))).toBe(expected);
  });

  it('weighs a unanimous screen more, splits each family\'s level by weight, and designs K for power at each share', () => {
    const screening = screen(summaries({ a: '111', b: '110', c: '000', d: '100' }), summaries({ a: '0', b: '0', c: '1', d: '0' }));
    expect([screening.regressionCandidates, screening.fixCandidates]).toEqual([['a', 'b'], ['c']]);
    const design = designConfirmation(screening, policy);
    const [regressions, fixes] = design.families;
    expect(regressions?.cases.map((c) => [c.caseId, c.weight])).toEqual([['a', UNANIMOUS_WEIGHT], ['b', 1]]);
    const level = splitAlpha(0.05).regression;
    expect(regressions?.cases.map((c) => c.bar)).toEqual([(level * 4) / 5, level / 5]);
    expect(fixes?.cases.map((c) => [c.caseId, c.bar])).toEqual([['c', splitAlpha(0.05).fix]]);
    for (const c of [...(regressions?.cases ?? []), ...(fixes?.cases ?? [])]) {
      expect(c.trialsPerSide).toBe(designTrials(c.bar, 0.6, 32, (k) => (k > 12 ? 0.7 : k > 6 ? 0.8 : 1)).trialsPerSide);
      expect(c.interims).toEqual([{ at: 6, share: 0.2 }, { at: 12, share: 0.1 }].filter((i) => i.at < c.trialsPerSide));
    }
  });
});

describe('the confirmation planner (pure)', () => {
  const design = designCase({ caseId: 'a', direction: 'regression', weight: 4, bar: 0.0375, baseline: { passes: 3, graded: 3 } }, policy).design;

  it('judges a case only where both sides have the same fresh trials, in looks of 1, 2, 4, 6, 8, 12 … up to K', () => {
    expect(design.trialsPerSide).toBe(14);
    expect(caseState(design, tally([0, 0], [0, 0]))).toEqual({ kind: 'live', requests: { baseline: 1, candidate: 1 } });
    // An infrastructure error on one side: it catches up before anything is judged.
    expect(caseState(design, tally([1, 1], [0, 0, 1]))).toEqual({ kind: 'live', requests: { baseline: 0, candidate: 1 } });
    expect(caseState(design, tally([2, 2], [0, 2]))).toEqual({ kind: 'live', requests: { baseline: 2, candidate: 2 } });
    expect(caseState(design, tally([4, 4], [0, 4]))).toEqual({ kind: 'live', requests: { baseline: 2, candidate: 2 } });
    // K infrastructure errors on a side: it can never reach K graded trials.
    expect(caseState(design, tally([1, 1, 13], [0, 1])).kind).toBe('incomplete');
  });

  it('stops for efficacy at an early look, for futility, and when the level is out of reach', () => {
    // 6/6 against 0/6: the first early look's fifth of the level is met.
    expect(caseState(design, tally([6, 6], [0, 6]))).toEqual({ kind: 'decided', verdict: { kind: 'significant', pValue: boschlooDropPValue(6, 0, 6) / 0.2, pBound: 'exact' } });
    expect(caseState(design, tally([0, 6], [6, 6]))).toEqual({ kind: 'decided', verdict: { kind: 'hopeless' } });
    expect(caseState(design, tally([2, 4], [2, 4]))).toMatchObject({ kind: 'decided', verdict: { kind: 'futile' } });
    // One fresh pair stops a case for futility only when it points the other way (below FIRST_LOOK_FUTILITY).
    expect(caseState(design, tally([0, 1], [1, 1]))).toMatchObject({ kind: 'decided', verdict: { kind: 'futile' } });
    expect(caseState(design, tally([1, 1], [0, 1])).kind).toBe('live');
    expect(caseState(design, tally([1, 1], [1, 1])).kind).toBe('live');
    // The full-size test: 12/14 against 4/14 and 10/14 against 7/14.
    expect(caseState({ ...design, futility: 0 }, tally([12, 14], [4, 14]))).toMatchObject({ kind: 'decided', verdict: { kind: 'significant', pBound: 'exact' } });
    expect(caseState({ ...design, futility: 0 }, tally([10, 14], [7, 14]))).toMatchObject({ kind: 'decided', verdict: { kind: 'not_significant' } });
  });

  it('records each side\'s first graded trial and the counts at each look as the trials arrive', () => {
    let tallies: Tallies = new Map();
    tallies = addConfirmation(tallies, 'baseline', summaries({ a: 'I' }));
    tallies = addConfirmation(tallies, 'candidate', summaries({ a: '0' }));
    expect(tallies.get('a')).toMatchObject({ baseline: { first: null, attempts: 1, graded: 0 }, candidate: { first: false } });
    tallies = addConfirmation(tallies, 'baseline', summaries({ a: '1' }));
    expect(tallies.get('a')?.baseline.first).toBe(true);
    tallies = addConfirmation(tallies, 'baseline', summaries({ a: '1111111' }));
    expect(tallies.get('a')?.atLooks.get(8)).toBeUndefined();
    tallies = addConfirmation(tallies, 'candidate', summaries({ a: '0010000' }));
    expect(tallies.get('a')?.atLooks.get(1)).toEqual({ baseline: 1, candidate: 0 });
    expect(tallies.get('a')?.atLooks.get(8)).toEqual({ baseline: 8, candidate: 1 });
    // The planner asks for one trial while a side has none graded; more would hide which came first.
    expect(() => addConfirmation(new Map(), 'baseline', summaries({ b: '10' }))).toThrow(/before its first graded one/);
  });

  it('asks every live case for its next look on both sides, and counts the paired test on first fresh pairs', () => {
    const screening = screen(summaries({ a: '111', b: '111', c: '000' }), summaries({ a: '0', b: '0', c: '1' }));
    const plan = designConfirmation(screening, policy);
    let tallies: Tallies = new Map();
    expect(nextStep(plan, tallies)).toEqual({
      kind: 'run',
      requests: [
        { side: 'baseline', trials: 1, caseIds: ['a', 'b', 'c'] },
        { side: 'candidate', trials: 1, caseIds: ['a', 'b', 'c'] },
      ],
    });
    tallies = addConfirmation(tallies, 'baseline', summaries({ a: '1', b: '0', c: '0' }));
    tallies = addConfirmation(tallies, 'candidate', summaries({ a: '0', b: '1', c: '1' }));
    expect(freshPairs(plan, tallies)).toMatchObject({ worse: 1, better: 2, pairs: 3 });
    const next = nextStep(plan, tallies);
    expect(next.kind === 'run' && next.requests.every((r) => r.trials === 1)).toBe(true);
  });
});

describe('the statistical gate (each cause of false rejection pinned)', () => {
  it('a provider that drifted since the baseline\'s records cannot fake a regression: the paired test reads fresh pairs', async () => {
    // Twelve cases passed every record; the candidate's screen fails them all, because the provider
    // got worse, not the candidate. Fresh trials of both versions, run together, agree.
    const ids = Array.from({ length: 12 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    const same = Object.fromEntries(ids.map((id) => [id, '0110']));
    const runner = scriptedRunner({ baseline: same, candidate: same });
    const gated = await gate(Object.fromEntries(ids.map((id) => [id, '111'])), Object.fromEntries(ids.map((id) => [id, '0'])), runner);
    expect(gated.decision.p2f).toEqual([]);
    expect(gated.decision.aggregate).toMatchObject({ source: 'fresh', worse: 0, better: 0 });
    expect(gated.decision.verdict).toBe('accept');
    // The screening runs alone (what a single-stage comparison reads) would have called it a regression.
    const stale = decideOnRecordedRuns({ baseline: summaries(Object.fromEntries(ids.map((id) => [id, '1']))), candidate: summaries(Object.fromEntries(ids.map((id) => [id, '0']))), policy, noise: quiet, intent: null });
    expect(stale.decision.verdict).toBe('reject');
  });

  it('2/2 → 0/2 is no evidence in a single stage, so it is not a regression on its own', () => {
    const { decision } = decideOnRecordedRuns({ baseline: summaries({ a: '11', b: '11', c: '10' }), candidate: summaries({ a: '00', b: '11', c: '10' }), policy, noise: quiet, intent: null });
    expect(decision.tests.find((t) => t.caseId === 'a')?.pValue).toBeCloseTo(1 / 6, 12);
    expect(decision.p2f).toEqual([]);
    expect(decision.verdict).toBe('accept');
  });

  it('per-case tests are corrected for the family, and a cap too low for power is said', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `c${i}`);
    // 4/4 → 0/4 fresh for all ten: the bar is 0.0375 · 4/40, which 4 trials a side (floor 4^-4) cannot reach.
    const runner = scriptedRunner({ baseline: Object.fromEntries(ids.map((id) => [id, '1111'])), candidate: Object.fromEntries(ids.map((id) => [id, '0000'])) });
    const gated = await gate(Object.fromEntries(ids.map((id) => [id, '111'])), Object.fromEntries(ids.map((id) => [id, '0'])), runner, { maxConfirmTrials: 4 });
    expect(gated.decision.p2f).toEqual([]);
    expect(gated.decision.warnings.join(' ')).toMatch(/10 possible regressions could not get 90% power .* gate.maxConfirmTrials = 4/);
    // The paired test on fresh pairs rejects ten drops out of ten: p = 2^-10.
    expect(gated.decision.verdict).toBe('reject');
    expect(gated.decision.aggregate.pValue).toBeCloseTo(2 ** -10, 12);
  });

  it('confirmation is equal per side and decided on the fresh trials only', async () => {
    const runner = scriptedRunner({ baseline: { a: '1'.repeat(12) }, candidate: { a: '0'.repeat(12) } });
    const gated = await gate({ a: '111', s1: '111', s2: '111' }, { a: '0', s1: '1', s2: '1' }, runner);
    const sides = (name: string) => runner.asked.filter((r) => r.side === name).reduce((n, r) => n + r.trials, 0);
    expect(sides('baseline')).toBe(sides('candidate'));
    const test = gated.decision.tests[0];
    // Every record of all three cases passed (a mature agent), so K is also sized for .97 → .5: 15, not 14.
    expect(test).toMatchObject({ caseId: 'a', screening: { baseline: { passes: 3, graded: 3 }, candidate: { passes: 0, graded: 1 } }, weight: UNANIMOUS_WEIGHT, trialsPerSide: 15 });
    // Stopped at the first early look, 6 against 0 of 6: nothing of the screening is pooled in.
    expect(test?.confirmation).toEqual({ baseline: { passes: 6, graded: 6 }, candidate: { passes: 0, graded: 6 } });
    expect(test?.pValue).toBe(boschlooDropPValue(6, 0, 6) / 0.2);
    expect(gated.decision.p2f).toEqual(['a']);
    expect(gated.decision.verdict).toBe('reject');
  });

  it('a tie is not a fail: an even split moves nothing', () => {
    const screening = screen(summarizeCases(records({ a: '10' })), summarizeCases(records({ a: '01' })));
    expect(screening.drops).toEqual([]);
    expect(screening.rises).toEqual([]);
  });

  it('a flaky case stops for futility after two fresh pairs and is not named', async () => {
    // Fresh: the baseline 1 of 2, the candidate 2 of 2: a drop is now unlikely to be shown (one pair, 1 against 1, is not enough to stop).
    const runner = scriptedRunner({ baseline: { a: '10' }, candidate: { a: '11' } });
    const gated = await gate({ a: '111', b: '111' }, { a: '0', b: '1' }, runner);
    expect(gated.decision.p2f).toEqual([]);
    expect(gated.decision.flaky).toEqual(['a']);
    expect(gated.decision.tests[0]?.outcome).toBe('futile');
    expect(gated.decision.verdict).toBe('accept');
    expect(gated.confirmationTrials).toEqual({ baseline: 2, candidate: 2 });
  });

  it('without a change intent no fixes are required: a run compared with itself is accepted', () => {
    const run = summaries({ a: '1', b: '0', c: '1' });
    for (const name of ['auto', 'flips'] as const) {
      expect(decideOnRecordedRuns({ baseline: run, candidate: run, policy: { ...policy, policy: name }, noise: quiet, intent: null }).decision.verdict).toBe('accept');
    }
  });

  it('the pass rate is pass^1, the mean per-case pass share, not a majority with ties failing', () => {
    const { baseline } = decideOnRecordedRuns({ baseline: summaries({ a: '10', b: '1' }), candidate: summaries({ a: '10', b: '1' }), policy, noise: quiet, intent: null });
    expect(baseline.passRate).toBeCloseTo(0.75, 12);
    expect(baseline.passHat['1']).toBeCloseTo(0.75, 12);
  });

  it('confirmed fixes, and only those, count for minF2P and the hit rate', async () => {
    const runner = scriptedRunner({ baseline: { a: '0'.repeat(12), b: '0' }, candidate: { a: '1'.repeat(12), b: '0' } });
    const gated = await gate({ a: '000', b: '000', s: '111' }, { a: '1', b: '1', s: '1' }, runner, {}, { targets: ['tool_error'], rationale: 'r' }, 'tool_error');
    expect(gated.decision.screening.f2p).toEqual(['a', 'b']);
    expect(gated.decision.f2p).toEqual(['a']);
    expect(gated.decision.rates.hitRate).toBe(1);
    expect(gated.decision.verdict).toBe('accept');
  });

  it('is undecided, never accepting, when a selected case cannot be confirmed for infrastructure errors', async () => {
    const runner = scriptedRunner({ baseline: { a: 'I'.repeat(12) }, candidate: { a: '0'.repeat(12) } });
    const gated = await gate({ a: '111', b: '111' }, { a: '0', b: '1' }, runner);
    expect(gated.decision.verdict).toBe('undecided');
    expect(gated.decision.checks.find((c) => c.name === 'confirmation')?.ok).toBe(false);
  });

  it('does not accept a candidate that reports its own failures as infrastructure errors, and names the imbalance', async () => {
    // Three cases the baseline always passes; the candidate's agent reports an infrastructure error
    // wherever it would fail, in its screen and in every fresh trial, while the baseline beside it is graded.
    const hidden = { h1: 'IIIIIIII', h2: 'IIIIIIII', h3: 'IIIIIIII' };
    const runner = scriptedRunner({ baseline: { h1: '11111111', h2: '11111111', h3: '11111111' }, candidate: hidden });
    const baseline = Object.fromEntries([...Array.from({ length: 27 }, (_, i) => [`s${i}`, '111']), ['h1', '111'], ['h2', '111'], ['h3', '111']]);
    const candidate = Object.fromEntries([...Array.from({ length: 27 }, (_, i) => [`s${i}`, '1']), ['h1', 'I'], ['h2', 'I'], ['h3', 'I']]);
    const gated = await gate(baseline, candidate, runner);
    // Three of thirty cases ungraded is within gate.maxUngradedShare: without the check, it would pass.
    expect(gated.decision.checks.find((c) => c.name === 'graded')?.ok).toBe(true);
    const check = gated.decision.checks.find((c) => c.name === 'infra_balance');
    expect(check?.ok).toBe(false);
    expect(check?.message).toMatch(/failed for infrastructure reasons where the baseline's, run beside them, did not: h1, h2, h3/);
    expect(gated.decision.verdict).toBe('reject');
    expect(gated.decision.reasons.join(' ')).toMatch(/not accepted/);
    // The same errors on both sides of a round are an outage, not the candidate: missing evidence, so undecided.
    const outage = scriptedRunner({ baseline: hidden, candidate: hidden });
    const undecided = await gate(baseline, candidate, outage);
    expect(undecided.decision.verdict).toBe('undecided');
    expect(undecided.decision.checks.find((c) => c.name === 'infra_balance')).toBeUndefined();
  });

  it('the paper-faithful policy warns when the store has seen this agent be noisy', () => {
    const { decision } = decideOnRecordedRuns({ baseline: summaries({ a: '1' }), candidate: summaries({ a: '1' }), policy: { ...policy, policy: 'flips' }, noise: { variedCases: 3 }, intent: null });
    expect(decision.warnings.join(' ')).toMatch(/this agent is noisy: 3 cases passed and failed within one version/);
  });
});

describe('what a decision states it could have seen', () => {
  it('the smallest drop each class of moved case is confirmed for, the paired test\'s, and the guarantee with its assumptions', async () => {
    const runner = scriptedRunner({ baseline: { a: '1'.repeat(12), b: '01' }, candidate: { a: '0'.repeat(12), b: '10' } });
    const gated = await gate({ a: '111', b: '110', s: '111' }, { a: '0', b: '0', s: '1' }, runner);
    const { power, procedure } = gated.decision;
    const regressions = power?.families.find((f) => f.direction === 'regression');
    expect(regressions?.classes.map((c) => [c.weight, c.cases])).toEqual([[UNANIMOUS_WEIGHT, 1], [1, 1]]);
    for (const c of regressions?.classes ?? []) {
      const [from1, from9] = c.detectable;
      expect(from1?.from).toBe(1);
      expect(from9?.from).toBe(0.9);
      // A drop the full-size test alone confirms with at least 80% power is at least as large.
      expect(fixedPower(c.trialsPerSide, 1, 1 - (from1?.change as number), c.bar * 0.9)).toBeGreaterThan(0.5);
    }
    // No case rose: what one would have met is still stated.
    expect(power?.text.join(' ')).toMatch(/Had one case moved where every baseline trial failed, over 3 records, it would be confirmed as fixed with 80% power if its pass chance rises by at least 0\.\d+ from 0%/);
    expect(power?.text.join(' ')).toMatch(/The paired test over 2 moved cases' first fresh pairs/);
    expect(procedure.guarantee).toMatch(/however the provider drifted since the baseline's records were taken/);
    expect(procedure.guarantee).toMatch(/fresh trials in each round ran under the same conditions/);
  });

  it('says "underpowered", with the trials it would take, when it saw a drop it could not have confirmed', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    const runner = scriptedRunner({
      baseline: { a: '11101110', b: '11111111', c: '11111111', d: '11111111' },
      candidate: { a: '01000010', b: '11111111', c: '11111111', d: '11111111' },
    });
    const gated = await gate(Object.fromEntries(ids.map((id) => [id, '111'])), Object.fromEntries(ids.map((id) => [id, '0'])), runner, { maxConfirmTrials: 8, futility: 0 });
    const { underpowered } = gated.decision.power ?? { underpowered: null };
    expect(gated.decision.p2f).toEqual([]);
    expect(underpowered).toMatchObject({ caseId: 'a', fresh: { baseline: { passes: 6, graded: 8 }, candidate: { passes: 2, graded: 8 } } });
    expect(underpowered?.pValue).toBeCloseTo(boschlooDropPValue(6, 2, 8), 12);
    expect(underpowered?.power).toBeLessThan(0.8);
    const needed = underpowered?.trialsNeeded as number;
    expect(fixedPower(needed, 0.75, 0.25, 0.0375 / 4)).toBeGreaterThanOrEqual(0.8);
    expect(gated.decision.power?.text.join(' ')).toMatch(new RegExp(`Underpowered: a fell from 6/8 to 2/8 .* about ${needed} fresh trials a side would confirm it`));
  });

  it('when no case moved, states no paired-test rate and says the test had nothing to judge', async () => {
    const ids = ['a', 'b', 'c'];
    const runner = scriptedRunner({ baseline: {}, candidate: {} });
    const gated = await gate(Object.fromEntries(ids.map((id) => [id, '111'])), Object.fromEntries(ids.map((id) => [id, '1'])), runner, {});
    expect(gated.confirmationTrials).toEqual({ baseline: 0, candidate: 0 });
    expect(gated.decision.power?.aggregate).toBeNull();
    const text = gated.decision.power?.text.join(' ') ?? '';
    expect(text).toContain('The paired test had no fresh pairs to judge');
    expect(text).not.toMatch(/over 0 moved cases/);
  });

  it('where nothing can be re-run, lists the likely regressions and says no case could be confirmed', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    const baseline = summaries(Object.fromEntries(ids.map((id, i) => [id, i >= 16 ? '10' : '11'])));
    const candidate = summaries(Object.fromEntries(ids.map((id, i) => [id, i < 10 ? '00' : i >= 16 ? '01' : '11'])));
    const { decision } = decideOnRecordedRuns({ baseline, candidate, policy, noise: quiet, intent: null });
    const likely = decision.power?.likely;
    expect(likely?.regressions.slice(0, 10).map((r) => r.caseId).sort()).toEqual(ids.slice(0, 10));
    expect(likely?.confirmable).toBe(false);
    expect(likely?.smallestPValue).toBeCloseTo(1 / 6, 12);
    expect(decision.power?.text.join(' ')).toMatch(/No single case could be confirmed at these trial counts: with 2 against 2 trials .* (\d+) trials a side is the fewest at which/);
    expect(decision.power?.text.join(' ')).toMatch(/never used to promote/);
    // The perfect split is the floor; confirming a real drop of detectableDrop with 80% power takes more, stated exactly.
    const forPower = likely?.trialsForPower as number;
    expect(forPower).toBeGreaterThan(likely?.trialsNeeded as number);
    expect(fixedPower(forPower, 1, 1 - policy.detectableDrop, likely?.bar as number)).toBeGreaterThanOrEqual(0.8);
    expect(fixedPower(forPower - 1, 1, 1 - policy.detectableDrop, likely?.bar as number)).toBeLessThan(0.8);
    // The paired test over the 20 cases at two trials a side states the common drop it could see.
    expect(decision.power?.aggregate).toMatchObject({ pairs: 20, level: 0.0125 });
    expect(decision.power?.aggregate?.detectableDrop).toBeGreaterThan(0);
  });
});

describe('the gate on simulated noisy agents (fixed seeds: the bench measures rates with fresh ones)', () => {
  const defaults = policy;
  const run = async (name: string, seeds: number) => {
    const scenario = SCENARIOS.find((s) => s.name === name);
    if (!scenario) throw new Error(name);
    const results = [];
    for (let seed = 1; seed <= seeds; seed += 1) results.push(await simulatePair({ mix: FIRST_MIX, cases: 50, scenario, policy: defaults, trials: 1, random: seededRandom(seed) }));
    return results;
  };

  it('rejects few unchanged candidates when every pass chance fell by 0.2 after the baseline was recorded', async () => {
    const results = await run('A/A, drift -0.2', 60);
    expect(results.filter((r) => r.verdict === 'reject').length).toBeLessThanOrEqual(4);
  });

  it('rejects three cases broken from .9 to 0 and mostly names exactly them; accepts three fixes from .2 to .8', async () => {
    const broken = await run('three cases .9 → 0', 20);
    expect(broken.every((r) => r.verdict === 'reject')).toBe(true);
    expect(broken.filter((r) => r.namedExactly).length).toBeGreaterThanOrEqual(15);
    const fixed = await run('three cases .2 → .8, with an intent', 20);
    expect(fixed.filter((r) => r.verdict === 'accept').length).toBeGreaterThanOrEqual(14);
  });
});
