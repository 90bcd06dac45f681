import { describe, expect, it } from 'vitest';
import { BudgetReached, parseBudget, spendGuard } from '../../src/domain/budget.ts';
import { AgentdevelError } from '../../src/domain/errors.ts';
import { InfraError } from '../../src/domain/ports/model.ts';

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
      guard.settled();
    }
    expect(guard.reached()).toBe(false);
    expect(() => guard.beforeRequest('critic')).toThrow(BudgetReached);
    expect(() => guard.beforeRequest('agent')).toThrow(/budget reached \(3 requests\): 3 of 3 requests sent/);
    expect(guard.reached()).toBe(true);
    expect(guard.refusals()).toBe(2);
    expect(guard.spent().requests).toBe(3);
  });

  it('refuses a dollar request when what was spent, those in flight and this one at the mean cost would pass it', () => {
    const guard = spendGuard({ kind: 'usd', amount: 1 });
    guard.beforeRequest('agent');
    guard.settled();
    guard.charge(0.3);
    guard.beforeRequest('agent');
    guard.settled();
    guard.charge(0.3);
    // 0.60 spent, one in flight at the mean 0.30: a second would make 1.20.
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

  it('holds nothing without a budget, and nothing per request for a case-trial budget (discover holds it between rounds)', () => {
    for (const guard of [spendGuard(null), spendGuard({ kind: 'caseTrials', amount: 1 })]) {
      for (let i = 0; i < 50; i += 1) guard.beforeRequest('agent');
      expect(guard.reached()).toBe(false);
    }
  });
});
