// `prompts --role critic` shows exactly what the critic is sent for a case: the same Messages API
// body (its requirements block and their enum included), and in a fresh clone a trace that git kept.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { cliAsync, exampleWorkspace, git, keepTrainCases, tempDir } from '../helpers/workspace.ts';

const CLAUDE = 'claude-sonnet-5-5';
const KEY = 'sk-ant-test-0123456789abcdef';

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic(mockBrain);
});
afterAll(async () => {
  await server.close();
});

/** The critic requests the server saw for one case (its trace starts with the case's start event). */
const criticRequestsOf = (caseId: string, from: number) =>
  server.requests.slice(from).filter((r) => r.role === 'critic' && JSON.stringify(r.body.messages).includes(`{\\"type\\":\\"start\\",\\"caseId\\":\\"${caseId}\\"`));

describe('the critic preview', () => {
  it('is byte for byte the body the critic is sent for a case with requirements (the demo’s train-001)', async () => {
    const dir = await exampleWorkspace();
    const configFile = path.join(dir, 'agentdevel.config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    config.models = { agent: 'mock', critic: CLAUDE, diagnostician: 'mock', synthesizer: 'mock' };
    writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
    git(dir, 'commit', '-qam', 'the critic on Claude');
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY };

    // A first run records train-001's trace (and grows the taxonomy with the labels it coins).
    const first = await cliAsync(['run', '--case', 'train-001', '-C', dir], { env });
    expect(first.code, first.stderr).toBe(0);
    const preview = await cliAsync(['prompts', '--role', 'critic', '--case', 'train-001', '--json', '-C', dir], { env: { ANTHROPIC_API_KEY: '' } });
    expect(preview.code, preview.stderr).toBe(0);
    const shown = JSON.parse(preview.stdout) as { headers: Record<string, string>; body: Record<string, unknown> };

    // The next run that judges train-001 (another case selection: no records to reuse) sends the preview.
    const from = server.requests.length;
    const second = await cliAsync(['run', '--case', 'train-001', '--case', 'train-002', '-C', dir], { env });
    expect(second.code, second.stderr).toBe(0);
    const sent = criticRequestsOf('train-001', from);
    expect(sent).toHaveLength(1);
    const { stream: _stream, ...body } = sent[0]?.body as Record<string, unknown>;
    expect(shown.body).toEqual(body);
    expect(shown.headers['x-agentdevel-role']).toBe(sent[0]?.headers['x-agentdevel-role']);
    // What item 9 was about: the requirements the critic must answer for, in the text and the schema.
    const user = JSON.stringify(shown.body.messages);
    expect(user).toContain('<requirements>');
    expect(user).toMatch(/- explicit-yes: /);
    expect(user).toMatch(/- no-unwanted-change: /);
    const schema = (shown.body.tools as Array<{ input_schema: { properties: { requirements?: { minItems: number; items: { properties: { id: { enum: string[] } } } } } } }>)[0]?.input_schema;
    expect(schema?.properties.requirements?.items.properties.id.enum.sort()).toEqual(['explicit-yes', 'no-unwanted-change']);
  }, 180_000);

  it('shows a recorded trace in a fresh clone, from the runs git kept with their traces (traces/from-git/)', async () => {
    const dir = await exampleWorkspace();
    keepTrainCases(dir, (_id, index) => index < 12);
    git(dir, 'commit', '-qam', '12 train cases');
    const iterated = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir]);
    expect(iterated.code, iterated.stderr).toBe(0);
    const clone = path.join(tempDir(), 'clone');
    git(path.dirname(clone), 'clone', '-q', dir, clone);
    git(clone, 'fetch', '-q', 'origin', 'refs/agentdevel/*:refs/agentdevel/*');
    const preview = await cliAsync(['prompts', '--role', 'critic', '--json', '-C', clone], { env: { ANTHROPIC_API_KEY: '' } });
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stderr).not.toMatch(/trace: empty/);
    expect(preview.stderr).toMatch(/trace and scorer result: case train-\d+, trial 0 \(run \S+\)/);
    const user = String((JSON.parse(preview.stdout) as { body: { messages: Array<{ content: string }> } }).body.messages[0]?.content);
    expect(user).toMatch(/<trace>\n\[\{"type":"start","caseId":"train-\d+"/);
  }, 180_000);
});
