import { describe, expect, it } from 'vitest';
import { zeroUsage, type CriticRequest, type ModelPort } from '../../src/domain/ports/model.ts';
import type { CriticVerdict } from '../../src/domain/record.ts';
import { judgeOnce } from '../../src/stages/critic/judge-once.ts';

/** A critic that labels every trace "wrong_unit", counting its calls; verdicts kept in a map. */
function setup() {
  let calls = 0;
  const model = { criticize: async () => ({ value: { pass: false, label: 'wrong_unit', description: 'd' } as CriticVerdict, usage: zeroUsage }) } as unknown as ModelPort;
  const counted = { ...model, criticize: async (request: CriticRequest) => ((calls += 1), model.criticize(request)) } as ModelPort;
  const kept = new Map<string, CriticVerdict>();
  const judge = judgeOnce(counted, { criticVerdict: (key) => kept.get(key) ?? null, saveCriticVerdict: (key, verdict) => void kept.set(key, verdict) });
  return { judge, calls: () => calls };
}
const request = (labels: string[]): CriticRequest => ({
  model: 'm',
  rubric: 'R',
  trace: [{ type: 'final', output: 32 }],
  scorer: { pass: false, checks: [{ scorer: 'numeric', pass: false }] },
  taxonomy: labels.map((label) => ({ label, description: label })),
});

describe('judge once', () => {
  it('does not judge a trace again because the taxonomy grew, and does when its label was merged away', async () => {
    const { judge, calls } = setup();
    await judge.model.criticize(request([]));
    // The taxonomy grew (the coined label, and another): the verdict still stands.
    const again = await judge.model.criticize(request(['wrong_unit', 'missing_confirmation']));
    expect(again.value.label).toBe('wrong_unit');
    expect(calls()).toBe(1);
    expect(judge.takeReused()).toBe(1);
    // "wrong_unit" was merged into another label: the kept verdict no longer speaks the vocabulary.
    await judge.model.criticize(request(['unit_conversion_error', 'missing_confirmation']));
    expect(calls()).toBe(2);
  });
});
