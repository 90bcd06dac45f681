import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BanditState, RoundDocument } from '../../src/domain/discover.ts';
import { scaffoldExample } from '../../src/app/example.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { cliAsync, git, tempDir } from '../helpers/workspace.ts';

const CLAUDE = 'claude-sonnet-5-5';
const CANARY = 'CANARY-7d21e0-discover-prompt';
const REF = 'refs/agentdevel/discover/orders-crew';

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic(mockBrain);
});
afterAll(async () => {
  await server.close();
});

/**
 * The crew example with the member writer, the judge and the critic on Claude (the agent stays
 * on the mock, so only those roles reach the API), a small design split, a concentration that
 * makes the archive grow in the first round, and a canary in every prompt of the blueprint.
 */
async function crewWithWriterOnClaude(): Promise<string> {
  const dir = path.join(tempDir('agentdevel-discover-claude-'), 'ws');
  await scaffoldExample(dir, 'orders-crew');
  const configFile = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  config.models = { agent: 'mock', critic: CLAUDE, diagnostician: 'mock', synthesizer: 'mock', judge: CLAUDE, writer: CLAUDE };
  // θ = 50: P(new) = 50/53 in round 1 (the seed's first draw is below it).
  config.discover = { theta: 50, designCases: 6, warmup: { rounds: 1, cases: 2 } };
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  for (const prompt of ['system.hbs', 'members/lookup.hbs', 'members/refunds.hbs', 'members/delivery-notes.hbs']) {
    const file = path.join(dir, 'blueprints/orders-crew', prompt);
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nInternal note ${CANARY}.\n`);
  }
  git(dir, 'commit', '-qam', 'writer, judge and critic on Claude; a small design split; a canary in the prompts');
  return dir;
}

describe('the member writer on the Messages API', () => {
  it('writes a member and the team’s orchestrator prompt, is charged per round in the ledger, and replays from its cassette with no network; the critic and the judge stay blind', async () => {
    const original = await crewWithWriterOnClaude();
    const copy = path.join(tempDir(), 'copy');
    git(path.dirname(copy), 'clone', '-q', original, copy);
    const cassette = path.join(tempDir(), 'cassette');
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' };
    const before = server.requests.length;
    const recorded = await cliAsync(['discover', '--rounds', '2', '--seed', '3', '--json', '--record', cassette, '-C', original], { env });
    expect(recorded.code, recorded.stderr).toBe(0);
    const outcome = JSON.parse(recorded.stdout) as { rounds: RoundDocument[]; state: BanditState; proposal: { team: string[] }; simulated: boolean };
    const requests = server.requests.slice(before);

    // The writer was asked (a member, its warm-up revision, the orchestrator prompt), with its role header.
    const writer = requests.filter((r) => r.role === 'writer');
    const tools = writer.map((r) => ((r.body.tools as Array<{ name: string }>)[0] as { name: string }).name);
    expect(tools.filter((t) => t === 'submit_member').length).toBeGreaterThanOrEqual(2);
    expect(tools.filter((t) => t === 'submit_orchestrator_prompt')).toHaveLength(1);
    expect(writer.every((r) => r.headers['x-agentdevel-role'] === 'writer')).toBe(true);
    const grown = outcome.rounds[0] as RoundDocument;
    expect(grown.crp.grew).toBe(true);
    expect(outcome.state.archive.map((m) => m.name)).toContain(grown.crp.added);
    expect(git(original, 'show', `${REF}:archive/${grown.crp.added}/member.json`)).toContain('"origin": "writer"');

    // The writer writes blueprint code and sees the blueprint; the critic and the judge never do.
    expect(writer.every((r) => r.raw.includes(CANARY))).toBe(true);
    const blind = requests.filter((r) => r.role === 'critic' || r.role === 'judge');
    expect(blind.filter((r) => r.role === 'judge').length).toBeGreaterThan(0);
    for (const request of blind) expect(request.raw).not.toContain(CANARY);

    // Each round's cost is the ledger's rows for it: every judge and writer call of the round, priced.
    for (const round of outcome.rounds) {
      expect(round.cost.ledger.calls).toBeGreaterThanOrEqual(round.cost.judgeRequests + round.cost.writerRequests);
      expect(round.cost.ledger.costUsd).toBeGreaterThan(0);
    }
    expect(outcome.rounds.reduce((n, r) => n + r.cost.writerRequests, 0)).toBe(tools.filter((t) => t === 'submit_member').length);

    // Replayed from the cassette on a clone, with no network and no key: the same rounds, archive and state.
    const offline = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: undefined };
    const beforeReplay = server.requests.length;
    const replayed = await cliAsync(['discover', '--rounds', '2', '--seed', '3', '--json', '--replay', cassette, '-C', copy], { env: offline });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(server.requests.length).toBe(beforeReplay);
    const again = JSON.parse(replayed.stdout) as typeof outcome;
    expect(again.state).toEqual(outcome.state);
    expect(again.proposal.team).toEqual(outcome.proposal.team);
    expect(git(copy, 'show', `${REF}:archive/${grown.crp.added}/prompt.hbs`)).toBe(git(original, 'show', `${REF}:archive/${grown.crp.added}/prompt.hbs`));
  }, 240_000);
});
