import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { heuristicCritic, rubricRules } from '../../src/adapters/engines/mock/heuristic-critic.ts';

const rubric = 'Policy.\n```json critic-rules\n{"confirmBefore": ["cancel_order"], "lookupBefore": {"cancel_order": "get_order"}}\n```\n';
const user = (text: string): TraceEvent => ({ type: 'message', role: 'user', text });
const assistant = (text: string): TraceEvent => ({ type: 'message', role: 'assistant', text });
const call = (id: string, name: string, args: unknown = {}): TraceEvent => ({ type: 'tool_call', id, name, args });
const ok = (id: string): TraceEvent => ({ type: 'tool_result', id, ok: true, result: {} });
const fail = (id: string, error: string): TraceEvent => ({ type: 'tool_result', id, ok: false, error });
const final = (output: unknown = 'done'): TraceEvent => ({ type: 'final', output });

const good = [user('cancel W1'), call('1', 'get_order'), ok('1'), assistant('Shall I cancel W1? (yes/no)'), user('yes'), call('2', 'cancel_order'), ok('2'), assistant('done'), final()];

describe('heuristic critic', () => {
  it('reads the rubric rules block', () => {
    expect(rubricRules(rubric).confirmBefore).toEqual(['cancel_order']);
    expect(rubricRules('no rules').confirmBefore).toEqual([]);
  });

  it('passes a clean trace', () => {
    expect(heuristicCritic(rubric, good, null)).toEqual({ pass: true, label: 'ok', description: expect.any(String) });
  });

  it.each<[string, TraceEvent[], string]>([
    ['an exhausted step budget', [user('x'), { type: 'error', kind: 'agent', message: 'step budget exhausted: 7 turns' }, final(null)], 'step_budget_exhausted'],
    ['an agent error', [user('x'), { type: 'error', kind: 'agent', message: 'the tool host exited (SIGKILL)' }, final(null)], 'agent_error'],
    ['invalid tool arguments', [user('x'), call('1', 'get_order', { order_id: 5 }), fail('1', 'invalid arguments: order_id: expected string'), final()], 'invalid_tool_arguments'],
    ['a tool error', [user('x'), call('1', 'get_order', { order_id: '#W1' }), fail('1', 'order "#W1" not found'), final()], 'tool_error'],
    ['a consequential call without confirmation', [user('x'), call('1', 'get_order'), ok('1'), call('2', 'cancel_order'), ok('2'), final()], 'missing_required_step'],
    ['acting after the user declined', [user('x'), call('1', 'get_order'), ok('1'), assistant('Shall I proceed? (yes/no)'), user('No, thanks'), call('2', 'cancel_order'), ok('2'), final()], 'acted_against_user'],
    ['a lookup after the action', [user('x'), assistant('Confirm? (yes/no)'), user('yes'), call('2', 'cancel_order'), ok('2'), call('1', 'get_order'), ok('1'), final()], 'wrong_order'],
    ['repeated identical calls', [user('x'), call('1', 'get_order', { a: 1 }), ok('1'), call('2', 'get_order', { a: 1 }), ok('2'), call('3', 'get_order', { a: 1 }), ok('3'), final()], 'repeated_identical_calls'],
    ['an empty final output', [user('x'), final('  ')], 'empty_final_output'],
    ['no final output', [user('x')], 'missing_final_output'],
  ])('labels %s', (_name, trace, label) => {
    const verdict = heuristicCritic(rubric, trace, null);
    expect(verdict.pass).toBe(false);
    expect(verdict.label).toBe(label);
    expect(verdict.description.length).toBeGreaterThan(0);
  });

  it('takes the symptom from a failed scorer when the trace looks clean', () => {
    const verdict = heuristicCritic(rubric, good, { pass: false, checks: [{ scorer: 'state', pass: false, code: 'unexpected_state_change', message: 'final state differs at orders.W2' }] });
    expect(verdict).toEqual({ pass: false, label: 'unexpected_state_change', description: 'state scorer: final state differs at orders.W2' });
  });

  it('describes a failed scorer by expected against actual when the scorer gave them', () => {
    const verdict = heuristicCritic(rubric, good, { pass: false, checks: [{ scorer: 'script', pass: false, where: 'answer', expected: 'Paris', actual: 'Lyon' }] });
    expect(verdict).toEqual({ pass: false, label: 'wrong_outcome', description: 'script scorer: expected "Paris" at answer, got "Lyon"' });
  });

  it('follows the one rule: a case the scorer passes is "ok", whatever the trace shows', () => {
    const recovered = [user('x'), call('1', 'get_order', { order_id: '#W1' }), fail('1', 'order "#W1" not found'), call('2', 'get_order', { order_id: 'W1' }), ok('2'), final()];
    expect(heuristicCritic(rubric, recovered, null).label).toBe('tool_error');
    expect(heuristicCritic(rubric, recovered, { pass: true, checks: [{ scorer: 'state', pass: true }] })).toEqual({ pass: true, label: 'ok', description: expect.any(String) });
  });
});
