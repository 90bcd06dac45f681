// What the agent (and the queue) sees of a case: never a field the grading reads.
import { describe, expect, it } from 'vitest';
import { caseGradingPaths, visibleCase } from '../../src/domain/ports/runtime.ts';
import { scorerConfigSchema } from '../../src/domain/task-manifest.ts';

const scorers = [
  { kind: 'numeric', path: 'answer', expectedFromCase: 'key.sum' },
  { kind: 'regex', patternFromCase: 'grading.pattern' },
  { kind: 'regex', pattern: 'x' },
  { kind: 'state' },
].map((s) => scorerConfigSchema.parse(s));

describe('the grading paths of a task', () => {
  it('are the grading fields plus every path a scorer takes its answer from', () => {
    expect(caseGradingPaths(scorers)).toEqual(['expected', 'grading.pattern', 'key.sum', 'requirements']);
    expect(caseGradingPaths([])).toEqual(['expected', 'requirements']);
    // The id names the case-trial everywhere: never hidden, even when a scorer reads it.
    expect(caseGradingPaths([scorerConfigSchema.parse({ kind: 'regex', patternFromCase: 'id' })])).not.toContain('id');
  });

  it('are removed from the case the agent gets, nested or not, leaving the rest and the original alone', () => {
    const testCase = {
      id: 'c1',
      input: 'What is 1 + 2?',
      expected: { answer: 3 },
      requirements: [{ id: 'r', text: 'say 3' }],
      key: { sum: 3, note: 'kept' },
      grading: { pattern: '^3$' },
      list: [{ sum: 1 }],
    };
    const before = structuredClone(testCase);
    expect(visibleCase(testCase, caseGradingPaths(scorers))).toEqual({ id: 'c1', input: 'What is 1 + 2?', key: { note: 'kept' }, grading: {}, list: [{ sum: 1 }] });
    expect(testCase).toEqual(before);
    // A path the case does not hold, or that runs into a value, changes nothing.
    expect(visibleCase({ id: 'c2', key: 5 }, ['key.sum', 'absent.deep'])).toEqual({ id: 'c2', key: 5 });
  });
});
