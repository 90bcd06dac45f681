// Labels the critic coins early in a run reach its later requests, wave by wave in case order,
// so a replay at another concurrency sends the very same requests.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { cliAsync, exampleWorkspace, git, keepTrainCases, tempDir } from '../helpers/workspace.ts';

const CLAUDE = 'claude-sonnet-5-5';

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic(mockBrain);
});
afterAll(async () => {
  await server.close();
});

/** The labels of a critic request's taxonomy block. */
function taxonomyOf(request: FakeRequest): string[] {
  const text = JSON.parse(JSON.stringify((request.body.messages as Array<{ content: unknown }>)[0]?.content)) as unknown;
  const user = typeof text === 'string' ? text : JSON.stringify(text);
  const block = /<taxonomy>([\s\S]*?)<\/taxonomy>/.exec(user.replace(/\\n/g, '\n'))?.[1] ?? '';
  return [...block.matchAll(/^- ([a-z][a-z0-9_]*):/gm)].map((m) => m[1] as string);
}

function setConcurrency(dir: string, concurrency: number): void {
  const file = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  config.concurrency = concurrency;
  config.models = { agent: 'mock', critic: CLAUDE, diagnostician: 'mock', synthesizer: 'mock' };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
}

describe('the taxonomy within a run', () => {
  it('shows later critic requests the labels coined earlier, and a replay at concurrency 1 in a fresh clone sends every request again', async () => {
    const dir = await exampleWorkspace();
    setConcurrency(dir, 4);
    keepTrainCases(dir, (_id, index) => index < 24);
    git(dir, 'commit', '-qam', 'the critic on Claude; 24 train cases');
    const clone = path.join(tempDir(), 'clone');
    git(path.dirname(clone), 'clone', '-q', dir, clone);
    const cassette = path.join(tempDir(), 'cassette');
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' };

    const before = server.requests.length;
    const recorded = await cliAsync(['run', '--record', cassette, '-C', dir], { env });
    expect(recorded.code, recorded.stderr).toBe(0);
    const critic = server.requests.slice(before).filter((r) => r.role === 'critic');
    const first = new Set(taxonomyOf(critic[0] as FakeRequest));
    const coined = [...new Set(critic.flatMap(taxonomyOf))].filter((label) => !first.has(label));
    expect(coined.length, `labels coined in the run and shown to later requests (first request: ${[...first].join(', ')})`).toBeGreaterThan(0);

    setConcurrency(clone, 1);
    const offline = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: undefined };
    const beforeReplay = server.requests.length;
    const replayed = await cliAsync(['run', '--replay', cassette, '-C', clone], { env: offline });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(server.requests.length).toBe(beforeReplay);
  }, 240_000);
});
