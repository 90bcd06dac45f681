import { describe, expect, it } from 'vitest';
import { changeScope, changedConfigKeys } from '../../src/stages/gate/change-scope.ts';
import { changeLines } from '../../src/stages/report/change-text.ts';
import { recordedOutsidePaths, type HumanChange } from '../../src/domain/human-change.ts';

const line = { blueprint: 'bp', task: 'sums' };

describe("a person's change, by kind of path", () => {
  it.each<[string, string[], ReturnType<typeof changeScope>]>([
    ['the blueprint alone', ['blueprints/bp/agent.mjs'], { blueprint: ['blueprints/bp/agent.mjs'], task: [], config: false, notGated: [] }],
    ['cases and a README', ['rubrics/sums/train.jsonl', 'README.md'], { blueprint: [], task: ['rubrics/sums/train.jsonl'], config: false, notGated: ['README.md'] }],
    ['the config and a workflow', ['agentdevel.config.json', '.github/workflows/gate.yml'], { blueprint: [], task: [], config: true, notGated: ['.github/workflows/gate.yml'] }],
    // Another line's blueprint and another task are not this agent, nor what it is measured on.
    ['another blueprint and another task', ['blueprints/bp2/agent.mjs', 'rubrics/sums-old/train.jsonl', 'rubrics/sums.md'], { blueprint: [], task: [], config: false, notGated: ['blueprints/bp2/agent.mjs', 'rubrics/sums-old/train.jsonl', 'rubrics/sums.md'] }],
    ['a nested config file of the same name', ['docs/agentdevel.config.json'], { blueprint: [], task: [], config: false, notGated: ['docs/agentdevel.config.json'] }],
  ])('%s', (_name, paths, expected) => {
    expect(changeScope(paths, line)).toEqual(expected);
  });

  it('names the top-level config keys whose values differ, whatever the key order and formatting; a dropped key counts', () => {
    const before = { blueprint: 'bp', gate: { alpha: 0.05, layers: [{ layer: 'flips' }] }, trials: 1 };
    expect(changedConfigKeys(before, { trials: 1, gate: { layers: [{ layer: 'flips' }], alpha: 0.05 }, blueprint: 'bp' })).toEqual([]);
    expect(changedConfigKeys(before, { blueprint: 'bp', gate: { alpha: 0.99, layers: [{ layer: 'flips' }] }, critic: 'all' })).toEqual(['gate', 'critic', 'trials']);
    expect(changedConfigKeys(null, { blueprint: 'bp' })).toEqual(['blueprint']);
  });
});

const taskChange: HumanChange = {
  blueprint: false,
  task: {
    folder: 'rubrics/sums/',
    paths: ['rubrics/sums/train.jsonl', 'rubrics/sums/rubric.md'],
    cases: { added: ['c20', 'c21'], removed: ['c03'], edited: ['c07'] },
    baseline: { commit: 'a'.repeat(40), label: "bp/v2 on feature's task" },
    releaseOnCases: [
      { caseId: 'c20', passes: 3, graded: 3 },
      { caseId: 'c21', passes: 1, graded: 3 },
      { caseId: 'c07', passes: 0, graded: 3 },
    ],
  },
  config: { file: 'agentdevel.config.json', keys: ['gate', 'trials'] },
  notGated: ['README.md', '.github/workflows/gate.yml'],
};

describe('what the outputs say of it', () => {
  it('says each kind of path in one line: no blueprint change, the task edits, the release on the new cases, the config, what was not gated', () => {
    expect(changeLines(taskChange)).toEqual([
      "no blueprint change: the release measured on the candidate's task",
      'task edits (rubrics/sums/): cases added c20, c21; removed c03; edited c07; rubric and scorer files changed: rubric.md',
      "both sides measured on the candidate's task: the baseline is bp/v2 on feature's task (aaaaaaaaaa, the release's blueprint in the candidate's tree, on no branch)",
      'the release on the added and edited cases: pass rate 44.4% (4 of 9 case-trials); failing: c21 (1/3), c07 (0/3)',
      "agentdevel.config.json changed (keys: gate, trials); this gate ran under the line's config; the change reaches the line when merged",
      'not gated: README.md, .github/workflows/gate.yml',
    ]);
  });

  it('says nothing for a change to the blueprint alone, and nothing of the task when it was not edited', () => {
    expect(changeLines(null)).toEqual([]);
    expect(changeLines({ blueprint: true, task: null, config: null, notGated: ['README.md'] })).toEqual(['not gated: README.md']);
  });

  it("records as gated, for approve, exactly the paths it lists outside the blueprint", () => {
    expect(recordedOutsidePaths(taskChange).sort()).toEqual(['.github/workflows/gate.yml', 'README.md', 'agentdevel.config.json', 'rubrics/sums/rubric.md', 'rubrics/sums/train.jsonl']);
    expect(recordedOutsidePaths(null)).toEqual([]);
  });
});
