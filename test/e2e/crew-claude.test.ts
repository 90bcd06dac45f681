import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffoldExample } from '../../src/app/example.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { cliAsync, git, keepTrainCases, tempDir } from '../helpers/workspace.ts';

const CLAUDE = 'claude-sonnet-5-5';
const CANARY = 'CANARY-5be0c1-crew-prompt';

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic(mockBrain);
});
afterAll(async () => {
  await server.close();
});

/** The crew example with every role (the judge too) on Claude, 12 train cases, and a canary in every prompt. */
async function crewOnClaude(): Promise<string> {
  const dir = path.join(tempDir('agentdevel-crew-claude-'), 'ws');
  await scaffoldExample(dir, 'orders-crew');
  const configFile = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  config.models = { agent: CLAUDE, critic: CLAUDE, diagnostician: CLAUDE, synthesizer: CLAUDE, judge: CLAUDE };
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  keepTrainCases(dir, (_id, index) => index < 12);
  for (const prompt of ['system.hbs', 'members/lookup.hbs', 'members/refunds.hbs', 'members/delivery-notes.hbs', 'partials/answer-format.hbs']) {
    const file = path.join(dir, 'blueprints/orders-crew', prompt);
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nInternal note ${CANARY}.\n`);
  }
  git(dir, 'commit', '-qam', 'every role on Claude; 12 train cases; a canary in the prompts');
  return dir;
}

describe('the crew and its judge on the Messages API', () => {
  it('judges helpfulness blind to the prompts, and an iteration replays from its cassette with no network', async () => {
    const original = await crewOnClaude();
    const copy = path.join(tempDir(), 'copy');
    git(path.dirname(copy), 'clone', '-q', original, copy);
    const cassette = path.join(tempDir(), 'cassette');
    const before = server.requests.length;
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' };
    const recorded = await cliAsync(['iterate', '--max-iterations', '1', '--record', cassette, '-C', original], { env });
    expect(recorded.code, recorded.stderr).toBe(0);
    const requests = server.requests.slice(before);
    const judge = requests.filter((r) => r.role === 'judge');
    expect(judge.length).toBeGreaterThan(0);
    for (const request of [...judge, ...requests.filter((r) => r.role === 'critic')]) expect(request.raw).not.toContain(CANARY);
    // The canary is really in what the agents run with, so the check above can fail.
    expect(requests.filter((r) => r.role === 'agent').every((r) => r.raw.includes(CANARY))).toBe(true);

    const creditOf = (dir: string) => {
      const ref = git(dir, 'for-each-ref', '--format=%(refname)', 'refs/agentdevel/rc').trim().split('\n')[0] as string;
      const document = JSON.parse(git(dir, 'show', `${ref}:diagnostics/orders-crew/iter-001/credit.json`)) as { components: unknown[]; judge: { calls: number } };
      return { components: document.components, calls: document.judge.calls };
    };
    const recordedCredit = creditOf(original);
    expect(recordedCredit.calls).toBe(judge.length);

    const offline = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: undefined };
    const beforeReplay = server.requests.length;
    const replayed = await cliAsync(['iterate', '--max-iterations', '1', '--replay', cassette, '-C', copy], { env: offline });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(server.requests.length).toBe(beforeReplay);
    expect(creditOf(copy)).toEqual(recordedCredit);
  }, 240_000);
});
