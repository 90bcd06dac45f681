import { describe, expect, it } from 'vitest';
import type { GateDecision } from '../../src/domain/decision.ts';
import type { CaseRecord } from '../../src/domain/record.ts';
import { summarizeCases } from '../../src/domain/case-summary.ts';
import { finalPass } from '../../src/domain/record.ts';
import { heuristicCritic, heuristicRequirementsReview } from '../../src/adapters/engines/mock/heuristic-critic.ts';
import { decideOnRecordedRuns } from '../../src/stages/gate/compare.ts';
import { caseSubScores, composite, pairedImprovement, runSubScores } from '../../src/stages/gate/efficiency.ts';
import { checksLayer, composeLayers, requirementsLayer } from '../../src/stages/gate/layers.ts';
import { candidateTrialsOf } from '../../src/stages/gate/decide.ts';
import { requirementFlips, requirementVerdicts, violationRate } from '../../src/stages/gate/requirements.ts';
import { score } from '../../src/stages/score/scorers.ts';
import { runScorerScript } from '../../src/adapters/process/scorer-scripts.ts';
import { PAPER_COST_WEIGHTS, traceCost } from '../../src/stages/score/trace-cost.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { AUTO_POLICY, caseRecord as record } from '../helpers/records.ts';

/** A flips decision that accepts (identical runs) or rejects (a run that lost a case, with an intent to fix). */
function flips(verdict: 'accept' | 'reject'): GateDecision {
  const before = [record('a', true), record('b', false)];
  return decideOnRecordedRuns({ baseline: summarizeCases(before), candidate: summarizeCases(before), policy: AUTO_POLICY, noise: { variedCases: 0 }, intent: verdict === 'accept' ? null : { targets: ['x'], rationale: 'r' } }).decision;
}

describe('the layered gate', () => {
  it('holds a must-pass case to the candidate\'s own trials, never to the baseline\'s confirmation trials', () => {
    const runs: Record<string, CaseRecord[]> = { 'run-b': [record('a', false, { trial: 1 })], 'run-c': [record('a', true, { trial: 1 })] };
    const trials = candidateTrialsOf([record('a', true)], [{ runId: 'run-b', side: 'baseline' }, { runId: 'run-c', side: 'candidate' }], { records: (id) => runs[id] ?? [] });
    expect(trials.map((t) => [t.trial, t.pass])).toEqual([[0, true], [1, true]]);
    expect(checksLayer({ mustPass: { cases: ['a'], candidate: trials }, blueprintChecks: [], traceCost: null }).verdict).toBe('pass');
  });

  it('lets a deterministic veto stand whatever the flips say', () => {
    const veto = checksLayer({ mustPass: { cases: ['a'], candidate: [record('a', false)] }, blueprintChecks: [], traceCost: null });
    expect(veto.verdict).toBe('veto');
    expect(veto.checks[0]?.message).toMatch(/1 must-pass case failed in the candidate: a/);
    const decision = composeLayers(flips('accept'), { checks: veto });
    expect(decision.layers.map((l) => [l.layer, l.verdict])).toEqual([
      ['checks', 'veto'],
      ['flips', 'accept'],
    ]);
    expect(decision.verdict).toBe('reject');
    expect(decision.reasons[0]).toMatch(/^checks layer: 1 must-pass case failed/);
  });

  it('lets the requirements layer turn an accept into a reject, and never a reject into an accept', () => {
    const violation = requirementsLayer({ violations: [{ requirement: 'R2', caseId: 'c7', reason: 'cancelled without a yes' }], violationRate: null });
    const vetoed = composeLayers(flips('accept'), { requirements: violation });
    expect(vetoed.verdict).toBe('reject');
    expect(vetoed.reasons.join(' ')).toMatch(/requirements layer: 1 requirement violation: R2 in c7 \(cancelled without a yes\)/);
    // A clean review of a rejected candidate changes nothing.
    const clean = requirementsLayer({ violations: [], violationRate: null });
    expect(composeLayers(flips('reject'), { requirements: clean }).verdict).toBe('reject');
    expect(composeLayers(flips('accept'), { requirements: clean }).verdict).toBe('accept');
  });

  it('holds an accepted candidate for approval, and asks no one about a rejected one', () => {
    expect(composeLayers(flips('accept'), { approval: true }).layers.at(-1)).toMatchObject({ layer: 'approval', verdict: 'pending' });
    expect(composeLayers(flips('reject'), { approval: true }).layers.at(-1)).toMatchObject({ layer: 'approval', verdict: 'not_run' });
  });

  it('holds the violation rate to its limit', () => {
    const layer = requirementsLayer({ violations: [], violationRate: { rate: 0.1, limit: 0.05 } });
    expect(layer.verdict).toBe('veto');
    expect(layer.checks[1]?.message).toBe('requirement-violation rate 10.0% (at most 5.0%)');
  });
});

describe('the trace cost (R_cost)', () => {
  const trace: TraceEvent[] = [
    { type: 'start', caseId: 'c', trial: 0 },
    { type: 'llm', model: 'm' },
    { type: 'tool_call', id: '1', name: 'get_order', args: { order_id: 'W1' } },
    { type: 'tool_result', id: '1', ok: true, result: {}, stateChanged: false },
    { type: 'llm', model: 'm' },
    { type: 'tool_call', id: '2', name: 'get_order', args: { order_id: 'W1' } },
    { type: 'tool_result', id: '2', ok: true, result: {}, stateChanged: false },
    { type: 'llm', model: 'm' },
    { type: 'tool_call', id: '3', name: 'cancel_order', args: { order_id: 'W1' } },
    { type: 'tool_result', id: '3', ok: true, result: {}, stateChanged: true },
    { type: 'final', output: 'done' },
  ];

  it('counts steps, repeated identical calls and calls that changed no state, with the paper weights', () => {
    // 3 model turns, 1 repeat (the second identical get_order), 2 no-op calls: 0.03 + 0.05 + 0.2.
    expect(traceCost(trace)).toEqual({ steps: 3, repeats: 1, noops: 2, cost: 0.28 });
    expect(PAPER_COST_WEIGHTS).toEqual({ steps: 0.01, repeats: 0.05, noops: 0.1 });
    // Without llm events (a command agent), actions are the steps.
    expect(traceCost(trace.filter((e) => e.type !== 'llm')).steps).toBe(3);
  });

  it('is a scorer that decides only when given a threshold', async () => {
    const input = { testCase: { id: 'c' }, output: 'done', trace, observation: null, taskRoot: '/nowhere', scriptEnvironment: {} };
    const measured = await score([{ kind: 'cost' }], input, { scripts: runScorerScript });
    expect(measured).toMatchObject({ decides: false, checks: [{ scorer: 'cost', pass: true, value: 0.28, decides: false }] });
    // A measuring check leaves the verdict to the critic (paper eq. 6).
    expect(finalPass(measured, { pass: false, label: 'x', description: '' })).toBe(false);
    const bounded = await score([{ kind: 'cost', max: 0.2 }], input, { scripts: runScorerScript });
    expect(bounded).toMatchObject({ pass: false, checks: [{ code: 'trace_too_costly' }] });
  });
});

describe('the composite and efficiency releases', () => {
  it('weighs named sub-scores, missing ones counting 0', () => {
    expect(composite({ passRate: 0.5, efficiency: 0.25, 'scorer:numeric': 0.25 }, { passRate: 1, efficiency: 0.5, scorers: { numeric: 0.8 } })).toBeCloseTo(0.5 + 0.125 + 0.2, 12);
    expect(composite({ passRate: 1, 'scorer:missing': 1 }, { passRate: 1, efficiency: null, scorers: {} })).toBeCloseTo(0.5, 12);
  });

  it('compares per-case scores on the same cases with an exact sign test', () => {
    const test = pairedImprovement(new Map([['a', 1], ['b', 1], ['c', 1], ['d', 1], ['e', 1], ['f', 1]]), new Map([['a', 2], ['b', 2], ['c', 2], ['d', 2], ['e', 2], ['f', 1]]));
    expect(test).toEqual({ better: 5, worse: 0, pValue: 2 ** -5 });
  });

  it('builds per-case sub-scores from records and trace costs', () => {
    const cases = caseSubScores([record('a', true), record('a', false), record('b', true)], new Map([['a', 1], ['b', 0]]));
    expect(cases.get('a')).toEqual({ passRate: 0.5, efficiency: 0.5, scorers: {} });
    expect(runSubScores(cases)).toEqual({ passRate: 0.75, efficiency: 0.75, scorers: {} });
  });
});

describe('requirements, one verdict each', () => {
  const state = (pass: boolean) => ({ pass, checks: [{ scorer: 'state', pass, ...(pass ? {} : { message: 'state differs' }) }] });
  const requirements = [
    { id: 'outcome', text: 'the outcome', scorer: 'state', symptoms: [] },
    { id: 'yes', text: 'an explicit yes', symptoms: ['missing_required_step'] },
  ];

  it('takes the scorer verdict for a requirement it checks, and the critic verdict for the rest', () => {
    const r = record('a', false, {
      scorer: state(true),
      critic: { pass: false, label: 'missing_required_step', description: 'd', requirements: [{ id: 'yes', pass: false, reason: 'no question asked' }] },
    });
    expect(requirementVerdicts(r, requirements)).toEqual([
      { id: 'outcome', pass: true, by: 'scorer', reason: 'the state scorer passed' },
      { id: 'yes', pass: false, by: 'critic', reason: 'no question asked' },
    ]);
    // The scorer passed, a requirement only the critic judges failed: the case fails, and it is a violation.
    expect(finalPass(r.scorer, r.critic)).toBe(false);
    expect(violationRate([r, record('b', true, { scorer: state(true) })])).toEqual({ rate: 0.5, cases: ['a'] });
  });

  it('flips per (case, requirement): fixed, broken, still failing', () => {
    const verdicts = (caseId: string, outcome: boolean, yes: boolean) =>
      record(caseId, outcome && yes, { scorer: state(outcome), critic: { pass: outcome && yes, label: outcome && yes ? 'ok' : 'x', description: '', requirements: [{ id: 'yes', pass: yes, reason: '' }] } });
    const flips = requirementFlips([verdicts('a', false, true), verdicts('b', true, true)], [verdicts('a', true, false), verdicts('b', true, true)], () => requirements);
    expect(flips).toEqual({ fixed: [{ caseId: 'a', requirement: 'outcome' }], broken: [{ caseId: 'a', requirement: 'yes' }], stillFailing: [] });
  });

  it('is judged by the offline critic from the symptoms a requirement lists', () => {
    const trace: TraceEvent[] = [
      { type: 'message', role: 'user', text: 'Cancel W1 please' },
      { type: 'tool_call', id: '1', name: 'cancel_order', args: {} },
      { type: 'tool_result', id: '1', ok: true, result: {} },
      { type: 'final', output: 'done' },
    ];
    const rubric = '```json critic-rules\n{"confirmBefore": ["cancel_order"]}\n```\n';
    const verdict = heuristicCritic(rubric, trace, state(true), [{ id: 'yes', text: 't', symptoms: ['missing_required_step'] }]);
    expect(verdict).toMatchObject({ pass: false, label: 'missing_required_step', requirements: [{ id: 'yes', pass: false }] });
    expect(heuristicRequirementsReview(rubric, [{ id: 'yes', text: 't', symptoms: ['missing_required_step'] }], [{ caseId: 'c1', trace }])).toEqual([
      { requirement: 'yes', caseId: 'c1', reason: 'cancel_order was called without asking the customer to confirm first.' },
    ]);
  });
});
