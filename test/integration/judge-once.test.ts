// Judge once over a real SQLite store: what a kept verdict depends on (not the taxonomy), and which
// kept verdicts may be reused (the line's, or this scope's), so a fresh clone asks what this
// workspace asks.
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/adapters/store/store.ts';
import { zeroUsage, type CriticRequest, type ModelPort } from '../../src/domain/ports/model.ts';
import type { CriticVerdict } from '../../src/domain/record.ts';
import { criticVerdictKey, judgeOnce } from '../../src/stages/critic/judge-once.ts';
import { tempDir } from '../helpers/workspace.ts';

const clock = { now: () => new Date('2026-11-27T10:00:00Z') };

/** A critic that counts its calls and coins the label it is told to. */
function countingCritic(verdict: CriticVerdict): { model: ModelPort; calls: () => number } {
  let calls = 0;
  const model = {
    criticize: async () => {
      calls += 1;
      return { value: verdict, usage: zeroUsage };
    },
  } as unknown as ModelPort;
  return { model, calls: () => calls };
}

const trace = [
  { type: 'start', caseId: 'c1', trial: 0 },
  { type: 'final', output: { reply: 'refunded' } },
] as CriticRequest['trace'];
const request = (labels: string[], trial = 0): CriticRequest => ({
  model: 'claude-sonnet-5-5',
  rubric: 'Refund only delivered orders.',
  trace: trace.map((e) => (e.type === 'start' ? { ...e, trial } : e)),
  scorer: null,
  taxonomy: labels.map((label) => ({ label, description: label })),
});
const coined: CriticVerdict = { pass: false, label: 'refund_undelivered', description: 'refunded an order not delivered' };

describe('judge once', () => {
  it('keys a verdict without the taxonomy: the same trace, another trial, a grown taxonomy: one call', async () => {
    const store = Store.open(tempDir(), clock);
    const critic = countingCritic(coined);
    const judge = judgeOnce(critic.model, store, 'command-1/iteration-1');
    await judge.model.criticize(request([]));
    // The label it coined has joined the taxonomy, and a later trial plays the case the same way.
    const again = await judge.model.criticize(request(['refund_undelivered', 'wrong_order'], 1));
    expect(again.value).toEqual(coined);
    expect(critic.calls()).toBe(1);
    expect(judge.takeReused()).toBe(1);
    expect(criticVerdictKey(request([]))).toBe(criticVerdictKey(request(['x'], 3)));
    expect(criticVerdictKey(request([]))).not.toBe(criticVerdictKey({ ...request([]), rubric: 'Refund anything.' }));
    store.close();
  });

  it('reuses another command’s verdict only once the line records it, and while its label is still offered', async () => {
    const store = Store.open(tempDir(), clock);
    const critic = countingCritic(coined);
    await judgeOnce(critic.model, store, 'command-1/iteration-1').model.criticize(request([]));
    // Another command (or the next iteration, or a fresh clone): not on the line, so asked again.
    await judgeOnce(critic.model, store, 'command-2/iteration-none').model.criticize(request(['refund_undelivered']));
    expect(critic.calls()).toBe(2);
    // A promotion records it (a clone reads it from runs.json): any command reuses it.
    store.keepLineVerdicts([{ key: criticVerdictKey(request([])), verdict: coined }]);
    await judgeOnce(critic.model, store, 'command-3/iteration-4').model.criticize(request(['refund_undelivered', 'later_label']));
    expect(critic.calls()).toBe(2);
    // Its label merged into another: still offered through the alias.
    await judgeOnce(critic.model, store.throughAliases(new Map([['refund_undelivered', 'wrong_refund']])), 'command-4/iteration-5').model.criticize(request(['wrong_refund']));
    expect(critic.calls()).toBe(2);
    // A taxonomy that does not offer its label (an alias undone): asked again, and that answer is this scope's.
    const judge = judgeOnce(critic.model, store.throughAliases(new Map()), 'command-5/iteration-6');
    await judge.model.criticize(request(['wrong_refund']));
    await judge.model.criticize(request(['wrong_refund'], 1));
    expect(critic.calls()).toBe(3);
    store.close();
  });
});
