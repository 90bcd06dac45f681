// A budget that fails safe, end to end through the CLI against the fake Messages API: the work
// stops before a request would pass it, undecided (exit 3), never a regression; a later run with
// more budget resumes and reuses what was spent; --estimate projects the requests beforehand.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { cliAsync, exampleWorkspace, git } from '../helpers/workspace.ts';

const CLAUDE = 'claude-sonnet-5-5';
const KEY = 'sk-ant-test-0123456789abcdef';

/** The bundled example with the agent and the critic on Claude and 16 train cases (kept small for speed). */
async function claudeWorkspace(): Promise<string> {
  const dir = await exampleWorkspace();
  const configFile = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  config.models = { agent: CLAUDE, critic: CLAUDE, diagnostician: CLAUDE, synthesizer: CLAUDE };
  config.critic = 'all';
  const gate = config.gate as { layers: Array<{ layer: string }> };
  gate.layers = gate.layers.map((layer) => (layer.layer === 'checks' ? { layer: 'checks' } : layer));
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  const train = path.join(dir, 'rubrics/orders/train.jsonl');
  writeFileSync(train, `${readFileSync(train, 'utf8').trim().split('\n').slice(0, 16).join('\n')}\n`);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'every role on Claude; 16 train cases');
  return dir;
}

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic(mockBrain);
});
afterAll(async () => {
  await server.close();
});
const env = () => ({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY });

function ledger(dir: string): { calls: number; cost: number } {
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  try {
    const row = sql.get<{ calls: number; cost: number }>(`SELECT COUNT(*) AS calls, COALESCE(SUM(cost_usd), 0) AS cost FROM model_calls`);
    return { calls: Number(row?.calls ?? 0), cost: Number(row?.cost ?? 0) };
  } finally {
    sql.close();
  }
}

function stoppedRuns(dir: string): number {
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  try {
    return Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM stopped_runs`)?.n ?? 0);
  } finally {
    sql.close();
  }
}

describe('iterate --budget', () => {
  it('stops before passing the budget, undecided (exit 3) and no regression; a larger budget resumes and completes; --estimate projects the next iteration within 25%', async () => {
    const dir = await claudeWorkspace();
    const sent = () => server.requests.length;

    const start = sent();
    const stopped = await cliAsync(['iterate', '--max-iterations', '1', '--budget', '0.50usd', '-C', dir], { env: env() });
    const firstRequests = sent() - start;
    expect(stopped.stderr).not.toMatch(/internal error/);
    expect(stopped.code).toBe(3);
    expect(stopped.stderr).toMatch(/error BUDGET_REACHED: undecided: budget reached \(\$0\.50/);
    expect(`${stopped.stdout}${stopped.stderr}`).not.toMatch(/regression|P→F [1-9]|rejected/i);
    // Nothing was decided: no release candidate, decision or tag was written to the line.
    expect(git(dir, 'for-each-ref', 'refs/agentdevel/rc', 'refs/tags')).toBe('');
    // What was spent is kept: the ledger's calls (at most the budget) and the run the budget stopped.
    const spent = ledger(dir);
    expect(spent.calls).toBe(firstRequests);
    expect(spent.cost).toBeLessThanOrEqual(0.5);
    expect(spent.cost).toBeGreaterThan(0.4);
    expect(stoppedRuns(dir)).toBeGreaterThan(0);

    const resumedAt = sent();
    const resumed = await cliAsync(['iterate', '--max-iterations', '1', '--budget', '5usd', '-C', dir], { env: env() });
    const secondRequests = sent() - resumedAt;
    expect(resumed.stderr).not.toMatch(/internal error/);
    expect(resumed.code, resumed.stderr.slice(-1500)).toBe(0);
    // The release's three records, taken before the budget stopped the first iterate, are reused (no request).
    expect(resumed.stderr.match(/\(records reused: this version already ran\)/g)).toHaveLength(3);
    expect(firstRequests + secondRequests).toBeLessThan(firstRequests * 3);

    const estimate = await cliAsync(['iterate', '--max-iterations', '1', '--estimate', '--json', '-C', dir], { env: {} });
    expect(estimate.code, estimate.stderr).toBe(0);
    const projection = (JSON.parse(estimate.stdout) as { projection: { requests: { low: number; expected: number; high: number } } }).projection;
    expect(sent()).toBe(resumedAt + secondRequests);

    const nextAt = sent();
    const next = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir], { env: env() });
    expect(next.code, next.stderr.slice(-1500)).toBe(0);
    const nextRequests = sent() - nextAt;
    // Measured: 288 requests ($0.495) stopped, 552 to resume and finish, then 561 projected for 543 sent.
    expect(Math.abs(projection.requests.expected - nextRequests) / nextRequests).toBeLessThanOrEqual(0.25);
  }, 300_000);
});

describe('a budget written wrong', () => {
  it('is refused with exit 2 naming the option or the key, before anything runs', async () => {
    const dir = await claudeWorkspace();
    const option = await cliAsync(['iterate', '--budget', '50cents', '-C', dir], { env: env() });
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/--budget: expected dollars of the cost ledger \(e\.g\. 0\.50usd\), model requests \(e\.g\. 300req\)/);
    const trials = await cliAsync(['gate', '--candidate', 'HEAD', '--budget', '400', '-C', dir], { env: env() });
    expect(trials.code).toBe(2);
    expect(trials.stderr).toMatch(/--budget: "400" is a budget in case-trials, which only discover's rounds measure/);
    const configFile = path.join(dir, 'agentdevel.config.json');
    writeFileSync(configFile, readFileSync(configFile, 'utf8').replace('"critic": "all"', '"critic": "all",\n  "budget": "lots"'));
    const key = await cliAsync(['run', '-C', dir], { env: env() });
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/agentdevel\.config\.json.*budget/);
    expect(server.requests.filter((r) => r.raw.includes(dir))).toHaveLength(0);
    expect(git(dir, 'for-each-ref', 'refs/agentdevel')).toBe('');
  }, 60_000);
});

describe('run --budget', () => {
  it('keeps the case-trials graded before the budget, grades none it cut short, and resumes from them', async () => {
    const dir = await claudeWorkspace();
    const start = server.requests.length;
    const stopped = await cliAsync(['run', '--budget', '40req', '--json', '-C', dir], { env: env() });
    expect(stopped.code, stopped.stderr).toBe(3);
    expect(stopped.stderr).toMatch(/error BUDGET_REACHED: undecided: budget reached \(40 requests; 40 requests sent/);
    // A run the budget stopped shows no pass rate: its case-trials are not all graded.
    expect(stopped.stderr).not.toMatch(/pass rate/);
    expect(server.requests.length - start).toBeLessThanOrEqual(40);
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    const kept = sql.all<{ status: string; pass: number | null }>(`SELECT r.status, r.pass FROM records r JOIN stopped_runs s ON s.run_id = r.run_id`);
    sql.close();
    // Graded case-trials only: none cut short by the budget is a fail or an infrastructure error.
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(16);
    expect(kept.every((r) => r.status === 'ok' && r.pass !== null)).toBe(true);

    const againAt = server.requests.length;
    const resumed = await cliAsync(['run', '--json', '-C', dir], { env: env() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`its ${kept.length} graded case-trials are kept`);
    const run = JSON.parse(resumed.stdout) as { runId: string; graded: number };
    expect(run.graded).toBe(16);
    // The kept case-trials are not sent again: fewer agent conversations start than the split has cases.
    const opened = server.requests.slice(againAt).filter((r) => r.role === 'agent' && (r.body.messages as unknown[]).length === 1).length;
    expect(opened).toBe(16 - kept.length);
  }, 120_000);
});
