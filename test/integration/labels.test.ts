// One vocabulary that can be curated: an alias makes synonyms one label for every reader of the
// store (hit rate, taxonomy, counts), while records and git keep the label they were given.
import { describe, expect, it } from 'vitest';
import { aliasMap, mergeAliases } from '../../src/domain/label-aliases.ts';
import { hitRateOf } from '../../src/stages/gate/gate.ts';
import { Store } from '../../src/adapters/store/store.ts';
import { tempDir } from '../helpers/workspace.ts';

const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
const effective = { iteration: 1, stage: 'start' as const };
const identity = { cacheKey: 'k1', blueprint: 'bp', commit: 'c1', blueprintTree: 't1', taskTree: 't2', split: 'train', trials: 1, agentModel: 'mock', criticModel: 'mock', simulated: true };
const failing = (caseId: string, label: string) => ({
  caseId,
  trial: 0,
  status: 'ok' as const,
  output: null,
  traceRef: `run-1/${caseId}.t0.jsonl`,
  scorer: { pass: false, checks: [] },
  critic: { pass: false, label, description: `${caseId}: converted 20 °C to 36 °F` },
  pass: false,
  error: null,
});

describe('labels merge', () => {
  it('makes two synonyms one label for the hit rate, the taxonomy and the counts, and keeps the recorded labels', () => {
    const store = Store.open(tempDir(), clock);
    store.createRun('run-1', identity, 'baseline');
    store.saveRecords('run-1', [failing('a', 'wrong_temperature_conversion'), failing('b', 'incorrect_temperature_conversion')], [
      { label: 'wrong_temperature_conversion', description: 'a Celsius value converted with the wrong formula' },
      { label: 'incorrect_temperature_conversion', description: 'the conversion is off' },
    ]);
    store.finishRun('run-1', 'complete');
    const intent = { targets: ['wrong_temperature_conversion'], rationale: 'fix the conversion' };
    // Before: an RC that targets one synonym misses the fix of the other.
    expect(hitRateOf(['a', 'b'], store.caseSummaries('run-1'), intent)).toBe(0.5);

    const added = mergeAliases([], ['incorrect_temperature_conversion', 'wrong_temperature_conversion'], 'wrong_temperature_conversion', { by: 'person', reason: 'one fault', at: clock.now().toISOString(), effective });
    expect(added).toEqual([expect.objectContaining({ from: 'incorrect_temperature_conversion', to: 'wrong_temperature_conversion' })]);
    store.useAliases(aliasMap(added as never));

    expect(hitRateOf(['a', 'b'], store.caseSummaries('run-1'), intent)).toBe(1);
    expect(store.taxonomy()).toEqual([{ label: 'wrong_temperature_conversion', description: 'a Celsius value converted with the wrong formula' }]);
    expect(store.labelCounts()).toEqual([{ label: 'wrong_temperature_conversion', caseTrials: 2, cases: 2 }]);
    expect(store.records('run-1').map((r) => r.critic?.label)).toEqual(['wrong_temperature_conversion', 'wrong_temperature_conversion']);
    // What was recorded stays as it was (taxonomy.json is written from this).
    expect(store.recordedTaxonomy().map((e) => e.label)).toEqual(['incorrect_temperature_conversion', 'wrong_temperature_conversion']);
    store.close();
  });

  it('follows chains and refuses to alias a label that already reads as another', () => {
    const source = { by: 'person' as const, reason: 'r', at: clock.now().toISOString(), effective };
    const first = mergeAliases([], ['a_b', 'c_d'], 'a_b', source) as never[];
    expect(aliasMap([...first, ...(mergeAliases(first, ['a_b'], 'e_f', source) as never[])])).toEqual(new Map([['c_d', 'e_f'], ['a_b', 'e_f']]));
    expect(mergeAliases(first, ['c_d', 'x_y'], 'x_y', source)).toMatch(/"c_d" already reads as "a_b"/);
  });
});

describe('the first run’s critic', () => {
  it('starts from the rubric’s declared labels, each with a definition from its requirement', async () => {
    const { cliAsync, exampleWorkspace } = await import('../helpers/workspace.ts');
    const dir = await exampleWorkspace();
    expect(JSON.parse((await cliAsync(['labels', '--json', '-C', dir])).stdout)).toMatchObject({ labels: [] });
    const run = await cliAsync(['run', '-C', dir]);
    expect(run.code, run.stderr).toBe(0);
    const labels = JSON.parse((await cliAsync(['labels', '--json', '-C', dir])).stdout) as { labels: Array<{ label: string; description: string }> };
    expect(labels.labels.find((l) => l.label === 'acted_against_user')?.description).toMatch(/^breaks the rubric's requirement "no-unwanted-change": When the customer does not clearly say yes/);
  }, 120_000);
});
