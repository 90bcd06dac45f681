// The diagnostician merges synonym labels the critic coined apart: with evidence, as an alias
// (never rewriting history), shown in the report and recorded in git like `labels merge`; the
// synthesizer's enum then has one label. A proposal whose evidence does not hold is repaired.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, toolAnswer, type FakeAnthropic, type FakeReply, type FakeRequest } from '../helpers/fake-anthropic.ts';
import { mockBrain, userText } from '../helpers/fake-brain.ts';
import { cliAsync, exampleWorkspace, git, keepTrainCases, repoRoot } from '../helpers/workspace.ts';

const CLAUDE = 'claude-sonnet-5-5';
const KEY = 'sk-ant-test-0123456789abcdef';
const BP = 'support-agent';
const SYNONYM = 'tool_call_failed';

/** The label the fake critic gave each case (the first time it judged it). */
const labelled = new Map<string, string>();
let diagnosticianRequests: FakeRequest[] = [];
const builtin = readFileSync(path.join(repoRoot, 'src/domain/builtin-diagnosis.mjs'), 'utf8');

/**
 * The mock's critic, except that it coins a synonym for the tool errors of cases whose number ends in 3 or 4; a
 * diagnostician that first proposes the merge with evidence that does not hold (a passing case),
 * then with a case of each label.
 */
function brain(request: FakeRequest): FakeReply | Promise<FakeReply> {
  if (request.role === 'critic') {
    const reply = mockBrain(request) as FakeReply;
    const caseId = /"caseId":"([^"]+)"/.exec(userText(request.body))?.[1] ?? '';
    if (reply.kind !== 'message') return reply;
    const use = reply.message.content[0] as { input: { label?: string } };
    const renamed = ['3', '4'].includes(caseId.slice(-1));
    const verdict = use.input.label === 'tool_error' && renamed ? { ...use.input, label: SYNONYM, description: 'the lookup tool call returned an error' } : use.input;
    if (verdict.label && !labelled.has(caseId)) labelled.set(caseId, verdict.label);
    return toolAnswer('submit_verdict', verdict);
  }
  if (request.role === 'diagnostician') {
    diagnosticianRequests.push(request);
    const of = (label: string) => [...labelled].find(([, l]) => l === label)?.[0] ?? 'none';
    const passing = [...labelled].find(([, l]) => l === 'ok')?.[0] ?? 'train-999';
    const evidence = diagnosticianRequests.length === 1 ? [of('tool_error'), passing] : [of('tool_error'), of(SYNONYM)];
    return toolAnswer('submit_script', { script: builtin, labelMerges: [{ labels: ['tool_error', SYNONYM], into: 'tool_error', reason: 'both are a get_order call that failed on an order id', evidence }] });
  }
  return mockBrain(request);
}

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic(brain);
});
afterAll(async () => {
  await server.close();
});

describe('label merges proposed by the diagnostician', () => {
  it('records the merge as an alias with its evidence, shows it in the report, and gives the synthesizer one label', async () => {
    const dir = await exampleWorkspace();
    keepTrainCases(dir, (_id, index) => index < 20);
    const configFile = path.join(dir, 'agentdevel.config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    config.models = { agent: 'mock', critic: CLAUDE, diagnostician: CLAUDE, synthesizer: CLAUDE };
    writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
    git(dir, 'commit', '-qam', 'critic, diagnostician and synthesizer on Claude; 20 train cases');
    const result = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir], { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY } });
    expect(result.code, result.stderr).toBe(0);
    expect([...labelled.values()]).toEqual(expect.arrayContaining(['tool_error', SYNONYM]));

    // The proposal is in the diagnostician's schema (labels and evidence are enums); the first one, with a passing case as evidence, was repaired.
    const schema = (diagnosticianRequests[0]?.body.tools as Array<{ input_schema: { properties: { labelMerges: { items: { properties: { labels: { items: { enum: string[] } }; evidence: { items: { enum: string[] } } } } } } } }>)[0]?.input_schema;
    const merge = schema?.properties.labelMerges.items.properties;
    expect(merge?.labels.items.enum).toEqual(expect.arrayContaining(['tool_error', SYNONYM]));
    expect(merge?.evidence.items.enum).toContain([...labelled].find(([, l]) => l === SYNONYM)?.[0]);
    expect(JSON.stringify(diagnosticianRequests[1]?.body.messages)).toMatch(/labelMerges\.0\.evidence\.1: Invalid option/);

    // Recorded in git like `labels merge`, by the diagnostician, with its evidence, in effect from iteration 1's synthesis on.
    const aliases = JSON.parse(git(dir, 'show', `refs/agentdevel/labels/${BP}:labels.json`)) as { schema: string; aliases: Array<Record<string, unknown>> };
    expect(aliases.schema).toBe('agentdevel/labels@2');
    expect(aliases.aliases).toEqual([
      expect.objectContaining({ from: SYNONYM, to: 'tool_error', by: 'diagnostician', effective: { iteration: 1, stage: 'synthesis' }, evidence: expect.arrayContaining([[...labelled].find(([, l]) => l === SYNONYM)?.[0]]) }),
    ]);

    // The synthesizer's targets: one label.
    const synthesizer = server.requests.find((r) => r.role === 'synthesizer');
    const targets = (synthesizer?.body.tools as Array<{ input_schema: { properties: { intent: { properties: { targets: { items: { enum: string[] } } } } } } }>)[0]?.input_schema.properties.intent.properties.targets.items.enum;
    expect(targets).toContain('tool_error');
    expect(targets).not.toContain(SYNONYM);

    // The report shows it; the recorded diagnosis keeps the labels it was written with, and the merge beside them.
    const audit = `refs/agentdevel/rc/${BP}/iter-001`;
    const report = JSON.parse(git(dir, 'show', `${audit}:diagnostics/${BP}/iter-001/report.json`)) as { schema: string; labelMerges: unknown[]; dominantSymptoms: Array<{ label: string }> };
    expect(report.schema).toBe('agentdevel/diagnosis-report@3');
    expect(report.labelMerges).toEqual([expect.objectContaining({ labels: ['tool_error', SYNONYM], into: 'tool_error' })]);
    expect(report.dominantSymptoms.map((s) => s.label)).toContain(SYNONYM);
    const folder = git(dir, 'ls-tree', '--name-only', `${audit}:releases/${BP}`).split('\n').find((f) => f === 'v1') ? 'v1' : 'rejected/iter-001';
    const markdown = git(dir, 'show', `${audit}:releases/${BP}/${folder}/report.md`).replace(/\\([!-/:-@[-`{-~])/g, '$1');
    expect(markdown).toMatch(new RegExp(`- \`${SYNONYM}\` now read as \`tool_error\`: both are a get_order call that failed on an order id \\(evidence: `));

    // `labels` lists one label with its alias; the records keep what the critic gave.
    const labels = JSON.parse((await cliAsync(['labels', '--json', '-C', dir], { env: { ANTHROPIC_API_KEY: '' } })).stdout) as { labels: Array<{ label: string; aliases: string[] }> };
    expect(labels.labels.map((l) => l.label)).not.toContain(SYNONYM);
    expect(labels.labels.find((l) => l.label === 'tool_error')?.aliases).toEqual([SYNONYM]);
    const runs = git(dir, 'show', `${audit}:releases/${BP}/${folder}/runs.json`);
    expect(runs).toContain(`"label":"${SYNONYM}"`);
  }, 240_000);
});
