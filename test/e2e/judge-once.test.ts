// Judge once is keyed on what a verdict depends on, not the taxonomy: a later command, with a
// taxonomy grown by the labels the first one coined, sends no critic request for a trace whose
// verdict the line records (the verdict keys runs.json carries), and asks only about the rest.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { cliAsync, exampleWorkspace, git, keepTrainCases } from '../helpers/workspace.ts';

const CLAUDE = 'claude-sonnet-5-5';
const KEY = 'sk-ant-test-0123456789abcdef';
const BP = 'support-agent';

let server: FakeAnthropic;

beforeAll(async () => {
  server = await startFakeAnthropic(mockBrain);
});

afterAll(async () => {
  await server.close();
});

/** The verdict keys the runs.json documents of the line's tip record. */
function lineVerdictKeys(dir: string): Set<string> {
  const files = git(dir, 'ls-tree', '-r', '--name-only', 'HEAD', `releases/${BP}`).split('\n').filter((f) => f.endsWith('/runs.json'));
  const keys = new Set<string>();
  for (const file of files) {
    const document = JSON.parse(git(dir, 'show', `HEAD:${file}`)) as { runs: Array<{ records: Array<{ verdictKey?: string | null }> }> };
    for (const record of document.runs.flatMap((r) => r.records)) if (record.verdictKey) keys.add(record.verdictKey);
  }
  return keys;
}

const criticRequests = (from: number) => server.requests.slice(from).filter((r) => (r.body.tools as Array<{ name: string }> | undefined)?.[0]?.name === 'submit_verdict').length;

describe('judge once across iterations', () => {
  it('asks the critic nothing about a trace whose verdict the line records, though the taxonomy grew', async () => {
    const dir = await exampleWorkspace();
    const configFile = path.join(dir, 'agentdevel.config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    // Every role on the fake Messages API (as test/e2e/git-record.test.ts): of the first two
    // iterations one is promoted, so the line records its runs. The agent plays a case the same way every time.
    config.models = { agent: CLAUDE, critic: CLAUDE, diagnostician: CLAUDE, synthesizer: CLAUDE };
    writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
    keepTrainCases(dir, (_id, index) => index < 16);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'every role on Claude; 16 train cases');
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY };

    const first = await cliAsync(['iterate', '--max-iterations', '2', '--json', '-C', dir], { env });
    expect(first.stderr).not.toMatch(/internal error/);
    expect(first.code, first.stderr).toBe(0);
    const onLine = lineVerdictKeys(dir);
    expect(onLine.size, first.stdout).toBeGreaterThan(0);
    const db = path.join(dir, '.agentdevel', 'state.db');
    const before = openSql(db);
    let earlierRuns: Set<string>;
    try {
      // The first iteration coined labels: the second command's critic is sent a larger taxonomy.
      expect(Number(before.get<{ n: number }>(`SELECT COUNT(*) AS n FROM symptoms WHERE first_seen_run IS NOT NULL`)?.n)).toBeGreaterThan(0);
      earlierRuns = new Set(before.all<{ id: string }>(`SELECT id FROM runs`).map((r) => String(r.id)));
    } finally {
      before.close();
    }

    const from = server.requests.length;
    const second = await cliAsync(['iterate', '--max-iterations', '1', '--json', '-C', dir], { env });
    expect(second.stderr).not.toMatch(/internal error/);
    expect([0, 1]).toContain(second.code);
    const after = openSql(db);
    try {
      const judged = after
        .all<{ run_id: string; verdict_key: string }>(`SELECT run_id, verdict_key FROM records WHERE verdict_key IS NOT NULL`)
        .filter((r) => !earlierRuns.has(String(r.run_id)))
        .map((r) => String(r.verdict_key));
      const reusedFromLine = new Set(judged.filter((key) => onLine.has(key)));
      const fresh = new Set(judged.filter((key) => !onLine.has(key)));
      // Identical traces were judged again in the second iteration (the mock agent is deterministic)...
      expect(reusedFromLine.size).toBeGreaterThan(0);
      // ...and only the traces the line holds no verdict for reached the critic, each once.
      expect(criticRequests(from)).toBe(fresh.size);
    } finally {
      after.close();
    }
  }, 240_000);
});
