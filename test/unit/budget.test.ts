import { describe, expect, it } from 'vitest';
import { BudgetReached, parseBudget, spendGuard, type SpendGuard } from '../../src/domain/budget.ts';
import { AgentdevelError } from '../../src/domain/errors.ts';
import { InfraError, type CallRole } from '../../src/domain/ports/model.ts';

/** One request sent, answered and charged at `cost`. */
function paid(guard: SpendGuard, role: CallRole, cost: number): void {
  guard.beforeRequest(role);
  guard.settled(role, true);
  guard.charge(role, cost);
}

describe('parseBudget', () => {
  it.each([
    ['0.50usd', { kind: 'usd', amount: 0.5 }],
    ['$2', { kind: 'usd', amount: 2 }],
    ['300req', { kind: 'requests', amount: 300 }],
    ['300 requests', { kind: 'requests', amount: 300 }],
    ['400', { kind: 'caseTrials', amount: 400 }],
  ])('reads %s', (text, budget) => {
    expect(parseBudget(text, '--budget')).toEqual(budget);
  });

  it.each(['0usd', '50cents', '-1req', '', '1.5req'])('refuses %j with exit 2, naming where', (text) => {
    const error = (() => {
      try {
        parseBudget(text, 'budget (agentdevel.config.json)');
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(AgentdevelError);
    expect((error as AgentdevelError).exitCode).toBe(2);
    expect((error as AgentdevelError).message).toMatch(/^budget \(agentdevel\.config\.json\): expected dollars/);
  });
});

describe('spendGuard', () => {
  it('refuses the request that would pass a request budget, and every one after it', () => {
    const guard = spendGuard({ kind: 'requests', amount: 3 });
    for (let i = 0; i < 3; i += 1) {
      guard.beforeRequest('agent');
      guard.settled('agent', false);
    }
    expect(guard.reached()).toBe(false);
    expect(() => guard.beforeRequest('critic')).toThrow(BudgetReached);
    expect(() => guard.beforeRequest('agent')).toThrow(/budget reached \(3 requests\): 3 of 3 requests sent/);
    expect(guard.reached()).toBe(true);
    expect(guard.refusals()).toBe(2);
    expect(guard.spent().requests).toBe(3);
  });

  it('refuses a dollar request when what was spent, those not yet charged and this one, each at the most its role has cost, would pass it', () => {
    const guard = spendGuard({ kind: 'usd', amount: 1 });
    paid(guard, 'agent', 0.3);
    paid(guard, 'agent', 0.3);
    // 0.60 spent, one in flight at 0.30: a second would make 1.20.
    guard.beforeRequest('agent');
    const refused = (() => {
      try {
        guard.beforeRequest('critic');
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refused).toBeInstanceOf(InfraError);
    expect(String((refused as Error).message)).toMatch(/\$0\.6000 of \$1\.00 spent/);
  });

  it('prices a request at its own role, not at the mean of cheaper ones, and keeps an answered request reserved until it is charged', () => {
    const guard = spendGuard({ kind: 'usd', amount: 0.5 });
    // Many cheap critic requests, and one synthesizer request that cost 0.10.
    for (let i = 0; i < 20; i += 1) paid(guard, 'critic', 0.01);
    paid(guard, 'synthesizer', 0.1);
    // 0.30 spent. The mean (about 0.014) would let a synthesizer request through at 0.45 in flight; at its own 0.10 it is not.
    guard.beforeRequest('synthesizer');
    // Answered, not yet charged: still reserved, so the next one sees 0.30 + 0.10 + 0.10.
    guard.settled('synthesizer', true);
    expect(() => guard.beforeRequest('synthesizer')).not.toThrow();
    expect(() => guard.beforeRequest('synthesizer')).toThrow(BudgetReached);
    // A failed request releases what it held; a charge releases the answered one's.
    const other = spendGuard({ kind: 'usd', amount: 0.25 });
    paid(other, 'critic', 0.1);
    other.beforeRequest('critic');
    other.settled('critic', false);
    other.beforeRequest('critic');
    expect(() => other.beforeRequest('critic')).toThrow(BudgetReached);
  });

  it('holds nothing without a budget, and nothing per request for a case-trial budget (discover holds it between rounds)', () => {
    for (const guard of [spendGuard(null), spendGuard({ kind: 'caseTrials', amount: 1 })]) {
      for (let i = 0; i < 50; i += 1) guard.beforeRequest('agent');
      expect(guard.reached()).toBe(false);
    }
  });
});
