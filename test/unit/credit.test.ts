import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { rankBy, siteKey, tallyCredit, type Component, type GradedTrial } from '../../src/stages/credit/credit.ts';

const call = (agent: string, id: string, name: string, ok = true): TraceEvent[] => [
  { type: 'tool_call', agent, id, name, args: {} },
  ok ? { type: 'tool_result', agent, id, ok: true, result: 'x' } : { type: 'tool_result', agent, id, ok: false, error: 'boom' },
];
const turn = (agent: string): TraceEvent => ({ type: 'llm', agent, model: 'm' });

const components: Component[] = [
  { name: 'lookup', kind: 'member', description: 'looks up' },
  { name: 'notes', kind: 'member', description: 'notes' },
  { name: 'get_order', kind: 'tool', description: 'gets' },
  { name: 'rules.hbs', kind: 'partial', description: 'a partial', agents: ['lookup'] },
];

const trials: GradedTrial[] = [
  { caseId: 'a', trial: 0, pass: true, trace: [turn('orchestrator'), ...call('orchestrator', 'o1', 'lookup'), turn('lookup'), ...call('lookup', 'l1', 'get_order'), ...call('orchestrator', 'o2', 'notes')] },
  { caseId: 'b', trial: 0, pass: false, trace: [...call('orchestrator', 'o1', 'lookup'), turn('lookup'), turn('lookup'), ...call('lookup', 'l1', 'get_order', false)] },
  { caseId: 'c', trial: 0, pass: true, trace: [...call('orchestrator', 'o2', 'notes')] },
];

describe('credit per component', () => {
  it('counts calls, errors, calls on passing and failing case-trials and on the last RC flips, per kind', () => {
    const credit = tallyCredit({ components, trials, lastRc: { fixed: ['a'], broken: ['b'] }, verdicts: null, policy: { minSuccessRate: 0.7, maxHelpfulness: 0.3 } });
    const by = new Map(credit.map((c) => [c.name, c]));
    expect(by.get('lookup')).toMatchObject({ calls: 2, errors: 0, callsOnPassing: 1, callsOnFailing: 1, successRate: 0.5, callsOnFixed: 1, callsOnBroken: 1, helpfulness: null });
    expect(by.get('get_order')).toMatchObject({ calls: 2, errors: 1, callsOnFailing: 1 });
    expect(by.get('notes')).toMatchObject({ calls: 2, successRate: 1, callsOnFixed: 1, callsOnBroken: 0 });
    // A partial's calls are the model turns of the agents whose prompt includes it.
    expect(by.get('rules.hbs')).toMatchObject({ calls: 3, callsOnPassing: 1, callsOnFailing: 2, helpfulness: null });
  });

  it('flags a free rider (high success rate, low helpfulness) once enough calls are judged, and ranks both ways', () => {
    const many = Array.from({ length: 3 }, (_, i) => trials.map((t) => ({ ...t, trial: i })));
    const all = many.flat();
    const verdicts = new Map<string, boolean>();
    for (const t of all) {
      verdicts.set(siteKey(t, 'o1'), true);
      verdicts.set(siteKey(t, 'o2'), false);
      verdicts.set(siteKey(t, 'l1'), true);
    }
    const credit = tallyCredit({ components, trials: all, lastRc: null, verdicts, policy: { minSuccessRate: 0.7, maxHelpfulness: 0.3 } });
    const by = new Map(credit.map((c) => [c.name, c]));
    expect(by.get('notes')).toMatchObject({ successRate: 1, helpfulness: { judged: 6, helpful: 0, rate: 0 }, freeRider: true });
    expect(by.get('lookup')).toMatchObject({ helpfulness: { rate: 1 }, freeRider: false });
    expect(rankBy(credit, (c) => c.successRate)[0]).toBe('notes');
    expect(rankBy(credit, (c) => c.helpfulness?.rate).at(-1)).toBe('notes');
    expect(rankBy(credit, (c) => c.helpfulness?.rate)).not.toContain('rules.hbs');
  });
});

describe('edit attribution (pure)', () => {
  it('falls back from single reverts to single edits, and says when no single edit explains a flip', async () => {
    const { attributeFlips, unexplainedByReverts } = await import('../../src/stages/attribute/attribution.ts');
    const flips = [
      { caseId: 'a', direction: 'f2p' as const },
      { caseId: 'b', direction: 'p2f' as const },
      { caseId: 'c', direction: 'f2p' as const },
    ];
    // Reverting either edit leaves b broken and c fixed (each edit alone is enough for them); a goes back without edit 0.
    const reverted = new Map([
      [0, new Map([['a', 'fail' as const], ['b', 'fail' as const], ['c', 'pass' as const]])],
      [1, new Map([['a', 'pass' as const], ['b', 'fail' as const], ['c', 'pass' as const]])],
    ]);
    expect(unexplainedByReverts(flips, reverted)).toEqual(['b', 'c']);
    const alone = new Map([
      [0, new Map([['b', 'fail' as const], ['c', 'fail' as const]])],
      [1, new Map([['b', 'fail' as const], ['c', 'fail' as const]])],
    ]);
    expect(attributeFlips({ edits: ['x', 'y'], flips, reverted, alone })).toEqual([
      { caseId: 'a', direction: 'f2p', edits: ['x'], evidence: 'reverted' },
      { caseId: 'b', direction: 'p2f', edits: ['x', 'y'], evidence: 'alone' },
      { caseId: 'c', direction: 'f2p', edits: [], evidence: 'unexplained' },
    ]);
  });

  it.each([
    { case: 'one regression: the planner\'s K for one case at 3α/4', flips: ['p2f'], override: null, trials: 14 },
    { case: 'two regressions share the level: more trials each', flips: ['p2f', 'p2f'], override: null, trials: 16 },
    { case: 'both families: the larger K (three fixes)', flips: ['f2p', 'f2p', 'f2p', 'p2f', 'p2f'], override: null, trials: 16 },
    { case: 'a stated count overrides the planner', flips: ['p2f', 'p2f'], override: 3, trials: 3 },
    { case: 'no flip: one trial (nothing runs)', flips: [], override: null, trials: 1 },
  ] as const)('variant trials: $case', async ({ flips, override, trials }) => {
    const { variantTrials } = await import('../../src/stages/attribute/attribution.ts');
    const policy = { alpha: 0.05, maxConfirmTrials: 32, detectableDrop: 0.6, futility: 0.33 };
    expect(variantTrials(flips.map((direction) => ({ direction })), policy, override)).toBe(trials);
  });

  it.each([
    { edits: 2, flips: 5, trials: 16, bound: { runs: 4, caseTrials: 320 } },
    { edits: 1, flips: 2, trials: 12, bound: { runs: 1, caseTrials: 24 } },
    { edits: 3, flips: 0, trials: 1, bound: { runs: 0, caseTrials: 0 } },
  ])('the bound of $edits edits and $flips flips at $trials trials', async ({ edits, flips, trials, bound }) => {
    const { attributionBound } = await import('../../src/stages/attribute/attribution.ts');
    expect(attributionBound(edits, flips, trials)).toEqual(bound);
  });
});
