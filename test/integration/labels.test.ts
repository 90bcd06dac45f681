// One vocabulary that can be curated: an alias makes synonyms one label for every reader of the
// store (hit rate, taxonomy, counts), while records and git keep the label they were given.
import { describe, expect, it } from 'vitest';
import { aliasesInEffect, aliasMap, mergeAliases, mergeLabelDocuments, mergeProposalProblems, type LabelAlias } from '../../src/domain/label-aliases.ts';
import { reportThroughAliases } from '../../src/domain/diagnosis.ts';
import { hitRateOf } from '../../src/stages/gate/face-value-gate.ts';
import { Store } from '../../src/adapters/store/store.ts';
import { tempDir } from '../helpers/workspace.ts';
import { caseRecord } from '../helpers/records.ts';

const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
const effective = { iteration: 1, stage: 'start' as const };
const identity = { cacheKey: 'k1', blueprint: 'bp', commit: 'c1', blueprintTree: 't1', taskTree: 't2', split: 'train', trials: 1, agentModel: 'mock', criticModel: 'mock', simulated: true };
const failing = (caseId: string, label: string) =>
  caseRecord(caseId, false, { traceRef: `run-1/${caseId}.t0.jsonl`, scorer: { pass: false, checks: [] }, critic: { pass: false, label, description: `${caseId}: converted 20 °C to 36 °F` } });

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
    const merged = store.throughAliases(aliasMap(added as never));

    expect(hitRateOf(['a', 'b'], merged.caseSummaries('run-1'), intent)).toBe(1);
    expect(merged.taxonomy()).toEqual([{ label: 'wrong_temperature_conversion', description: 'a Celsius value converted with the wrong formula' }]);
    expect(merged.labelCounts()).toEqual([{ label: 'wrong_temperature_conversion', caseTrials: 2, cases: 2 }]);
    expect(merged.records('run-1').map((r) => r.critic?.label)).toEqual(['wrong_temperature_conversion', 'wrong_temperature_conversion']);
    // What was recorded stays as it was (taxonomy.json is written from this).
    expect(merged.recordedTaxonomy().map((e) => e.label)).toEqual(['incorrect_temperature_conversion', 'wrong_temperature_conversion']);
    // A view, not a setting: the store it was made from still reads the labels as given.
    expect(hitRateOf(['a', 'b'], store.caseSummaries('run-1'), intent)).toBe(0.5);
    expect(store.taxonomy().map((e) => e.label)).toEqual(['incorrect_temperature_conversion', 'wrong_temperature_conversion']);
    store.close();
  });

  it('follows chains and refuses to alias a label that already reads as another', () => {
    const source = { by: 'person' as const, reason: 'r', at: clock.now().toISOString(), effective };
    const first = mergeAliases([], ['a_b', 'c_d'], 'a_b', source) as never[];
    expect(aliasMap([...first, ...(mergeAliases(first, ['a_b'], 'e_f', source) as never[])])).toEqual(new Map([['c_d', 'e_f'], ['a_b', 'e_f']]));
    expect(mergeAliases(first, ['c_d', 'x_y'], 'x_y', source)).toMatch(/"c_d" already reads as "a_b"/);
  });
});

describe('aliases in time and proposals', () => {
  const alias = (from: string, to: string, iteration: number, stage: 'start' | 'synthesis', at = '2026-11-22T10:00:00Z'): LabelAlias => ({ from, to, by: 'person', reason: 'r', at, evidence: [], effective: { iteration, stage } });

  it('puts an alias in effect from its iteration (at its start, or from its synthesis on), never before', () => {
    const aliases = [alias('a_a', 'b_b', 1, 'start'), alias('c_c', 'd_d', 3, 'start'), alias('e_e', 'f_f', 3, 'synthesis')];
    expect(aliasesInEffect(aliases, { iteration: 2, stage: 'synthesis' }).map((a) => a.from)).toEqual(['a_a']);
    expect(aliasesInEffect(aliases, { iteration: 3, stage: 'start' }).map((a) => a.from)).toEqual(['a_a', 'c_c']);
    expect(aliasesInEffect(aliases, { iteration: 3, stage: 'synthesis' }).map((a) => a.from)).toEqual(['a_a', 'c_c', 'e_e']);
    expect(aliasesInEffect(aliases, 'all')).toHaveLength(3);
  });

  it('merges two clones’ documents into the same one whichever side merges', () => {
    const ours = { schema: 'agentdevel/labels@2' as const, aliases: [alias('a_a', 'b_b', 1, 'start', '2026-11-22T10:00:00Z')] };
    const theirs = { schema: 'agentdevel/labels@2' as const, aliases: [alias('a_a', 'c_c', 1, 'start', '2026-11-22T11:00:00Z'), alias('a_a', 'b_b', 1, 'start', '2026-11-22T10:00:00Z')] };
    const merged = mergeLabelDocuments(ours, theirs);
    expect(mergeLabelDocuments(theirs, ours)).toEqual(merged);
    expect(merged.aliases.map((a) => `${a.from}>${a.to}`)).toEqual(['a_a>b_b', 'a_a>c_c']);
    expect(aliasMap(merged.aliases).get('a_a')).toBe('c_c');
  });

  it('refuses a merge whose labels or evidence do not hold, one line each', () => {
    const failedWith = new Map([['c1', new Set(['wrong_conversion'])], ['c2', new Set(['bad_conversion'])], ['c3', new Set(['tool_error'])]]);
    const vocabulary = new Set(['wrong_conversion', 'bad_conversion', 'tool_error']);
    const proposal = { labels: ['wrong_conversion', 'bad_conversion'], into: 'wrong_conversion', reason: 'one fault', evidence: ['c1', 'c2'] };
    expect(mergeProposalProblems(proposal, vocabulary, failedWith, 'labelMerges.0')).toEqual([]);
    expect(mergeProposalProblems({ ...proposal, labels: ['wrong_conversion', 'never_given'] }, vocabulary, failedWith, 'm')).toEqual(['m.labels: "never_given" is not a label of the taxonomy', 'm.evidence: "c2" failed with bad_conversion, none of the labels merged']);
    expect(mergeProposalProblems({ ...proposal, into: 'tool_error' }, vocabulary, failedWith, 'm')).toEqual(['m.into: "tool_error" is not one of the labels merged (wrong_conversion, bad_conversion)']);
    expect(mergeProposalProblems({ ...proposal, evidence: ['c1', 'c9'] }, vocabulary, failedWith, 'm')).toEqual(['m.evidence: "c9" is not a case that failed in the diagnosed run']);
    expect(mergeProposalProblems({ ...proposal, evidence: ['c1', 'c3'] }, vocabulary, failedWith, 'm')).toEqual(['m.evidence: "c3" failed with tool_error, none of the labels merged']);
    expect(mergeProposalProblems({ ...proposal, evidence: ['c1'] }, vocabulary, failedWith, 'm')).toEqual(['m.evidence: the cases show only wrong_conversion; name cases of at least two of the labels merged']);
  });

  it('reads a report through new aliases: merged symptoms become one, their counts and cases joined', () => {
    const report = {
      summary: 's',
      totals: { records: 4, failing: 3, infraErrors: 0 },
      dominantSymptoms: [
        { label: 'bad_conversion', count: 1, share: 0.25, description: 'off' },
        { label: 'wrong_conversion', count: 2, share: 0.5, description: 'wrong formula' },
      ],
      patterns: [{ label: 'bad_conversion', pattern: 'p', count: 1, caseIds: ['c2'] }],
      representativeCases: [{ caseId: 'c2', label: 'bad_conversion', description: 'd' }],
      affectedSurface: [{ label: 'wrong_conversion', caseIds: ['c1'] }, { label: 'bad_conversion', caseIds: ['c2'] }],
    };
    const read = reportThroughAliases(report, (l) => (l === 'bad_conversion' ? 'wrong_conversion' : l));
    expect(read.dominantSymptoms).toEqual([{ label: 'wrong_conversion', count: 3, share: 0.75, description: 'wrong formula' }]);
    expect(read.affectedSurface).toEqual([{ label: 'wrong_conversion', caseIds: ['c1', 'c2'] }]);
    expect(read.patterns[0]?.label).toBe('wrong_conversion');
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

  it('defines a label it coins once, from what its cases share, not one case’s sentence; `labels` and the critic’s taxonomy show it', async () => {
    const { cliAsync, exampleWorkspace } = await import('../helpers/workspace.ts');
    const dir = await exampleWorkspace();
    expect((await cliAsync(['run', '-C', dir])).code).toBe(0);
    const labels = JSON.parse((await cliAsync(['labels', '--json', '-C', dir])).stdout) as { labels: Array<{ label: string; description: string; cases: number }> };
    const toolError = labels.labels.find((l) => l.label === 'tool_error');
    // Before: "get_order with {"order_id":"w1034"} failed: …", the first case's sentence.
    expect(toolError?.description).toMatch(new RegExp(`^the critic's label for ${toolError?.cases} cases when it was coined: all ${toolError?.cases} show a get_order call that failed; most show the state scorer's check missing_state_change \\(\\d+ of ${toolError?.cases}\\)\\. Example \\(train-007\\): get_order with`));
    const text = (await cliAsync(['labels', '-C', dir])).stdout;
    expect(text).toContain(`  definition: ${toolError?.description}`);
    const preview = JSON.parse((await cliAsync(['prompts', '--role', 'critic', '--json', '-C', dir])).stdout) as { body: { messages: Array<{ content: string }> } };
    expect(preview.body.messages[0]?.content).toContain(`- tool_error: ${toolError?.description}`);
    // Written once: a later run that meets the label again keeps the definition.
    expect((await cliAsync(['run', '--case', 'train-013', '-C', dir])).code).toBe(0);
    const again = JSON.parse((await cliAsync(['labels', '--json', '-C', dir])).stdout) as { labels: Array<{ label: string; description: string }> };
    expect(again.labels.find((l) => l.label === 'tool_error')?.description).toBe(toolError?.description);
  }, 120_000);
});
