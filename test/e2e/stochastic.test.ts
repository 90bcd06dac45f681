import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSql } from '../../src/store/sqlite.ts';
import { cli, exampleWorkspace, git, repoRoot, tempDir } from '../helpers/workspace.ts';

const fixtures = path.join(repoRoot, 'test/fixtures/taubench');

function importRun(dir: string, file: string, name: string, trials?: string) {
  const result = cli(['import', 'taubench', path.join(fixtures, file), '--name', name, ...(trials ? ['--trials', trials] : []), '--json', '-C', dir]);
  expect(result.stderr).not.toMatch(/error/i);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as { runId: string; records: number };
}

interface CompareJson {
  baseline: { passRate: number; passHat: Record<string, number>; passAt: Record<string, number> };
  candidate: { passRate: number; passHat: Record<string, number>; passAt: Record<string, number> };
  flips: { p2f: string[]; f2p: string[]; flaky: string[] };
  significant: { regressions: string[]; fixes: string[] };
  pValue: number;
  decision: 'accept' | 'reject';
  reasons: string[];
}

function compare(dir: string, a: string, b: string): { code: number; json: CompareJson } {
  const result = cli(['compare', a, b, '--json', '-C', dir]);
  return { code: result.code, json: JSON.parse(result.stdout) as CompareJson };
}

describe('tau-bench results and the stochastic gate', () => {
  it('imports one record per task-trial, drops the system prompt, and matches pass^k and pass@k computed by hand', () => {
    const dir = tempDir('agentdevel-tau-');
    expect(importRun(dir, 'baseline.json', 'base').records).toBe(80);
    importRun(dir, 'baseline.json', 'same');
    const { json } = compare(dir, 'base', 'same');
    // 14 tasks always pass, 2 never, and four flaky ones pass 2, 3, 1 and 3 of 4 trials.
    const hand = {
      passHat: { 1: 16.25 / 20, 2: (14 + 1 / 6 + 3 / 6 + 0 + 3 / 6) / 20, 3: (14 + 0 + 1 / 4 + 0 + 1 / 4) / 20, 4: 14 / 20 },
      passAt: { 1: 16.25 / 20, 2: (14 + 5 / 6 + 1 + 0.5 + 1) / 20, 3: (14 + 1 + 1 + 0.75 + 1) / 20, 4: 18 / 20 },
    };
    for (const k of ['1', '2', '3', '4'] as const) {
      expect(json.baseline.passHat[k]).toBeCloseTo(hand.passHat[k], 3);
      expect(json.baseline.passAt[k]).toBeCloseTo(hand.passAt[k], 3);
    }
    expect(json.baseline.passRate).toBeCloseTo(14 / 20 + 2 / 20, 3);
    const traces = path.join(dir, 'traces');
    const run = readdirSync(traces)[0] as string;
    const sample = readFileSync(path.join(traces, run, readdirSync(path.join(traces, run))[0] as string), 'utf8');
    expect(sample).not.toContain('SYSTEM PROMPT');
    expect(sample).toContain('"type":"tool_call"');
  });

  it('accepts an A/A comparison of two disjoint trial sets of one version, marking its flips flaky', () => {
    const dir = tempDir('agentdevel-tau-');
    importRun(dir, 'baseline.json', 'A', '0,1');
    importRun(dir, 'baseline.json', 'B', '2,3');
    const { code, json } = compare(dir, 'A', 'B');
    expect(json.decision).toBe('accept');
    expect(code).toBe(0);
    expect(json.flips.flaky.length).toBeGreaterThan(0);
    expect(json.flips.p2f).toEqual([]);
    expect(json.significant.regressions).toEqual([]);
  });

  it('rejects a candidate in which ten always-passing cases always fail, listing exactly those ten', () => {
    const dir = tempDir('agentdevel-tau-');
    importRun(dir, 'baseline.json', 'base');
    importRun(dir, 'candidate.json', 'cand');
    const { code, json } = compare(dir, 'base', 'cand');
    expect(code).toBe(1);
    expect(json.decision).toBe('reject');
    expect(json.significant.regressions).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(json.flips.flaky).toEqual([]);
    expect(json.pValue).toBeCloseTo(2 ** -10, 6);
  });

  it('refuses a malformed results file with the entry and key, recording nothing', () => {
    const dir = tempDir('agentdevel-tau-');
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify([{ task_id: 1, reward: 1, traj: [], trial: 0 }, { task_id: 2, reward: 'yes', traj: [], trial: 0 }]));
    const result = cli(['import', 'taubench', bad, '--name', 'x', '-C', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.json: \[1\]\.reward: .*expected number/);
    expect(cli(['compare', 'x', 'x', '-C', dir]).code).toBe(2);
  });
});

describe('confirmation re-runs', () => {
  it('costs at most baseline + candidate + 3 x flipped cases agent runs, counted in the store, with flaky cases reported apart', async () => {
    const dir = await exampleWorkspace();
    const configFile = path.join(dir, 'agentdevel.config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8'));
    config.gate = { ...config.gate, policy: 'stochastic', confirmTrials: 3 };
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    git(dir, 'commit', '-qam', 'stochastic gate, one trial, three confirmation trials');

    const result = cli(['iterate', '--max-iterations', '1', '--json', '-C', dir]);
    expect(result.code).toBe(0);
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    const runs = sql.all<{ purpose: string; n: number }>(`SELECT runs.purpose AS purpose, COUNT(*) AS n FROM records JOIN runs ON runs.id = records.run_id GROUP BY runs.purpose`);
    sql.close();
    const count = Object.fromEntries(runs.map((r) => [r.purpose, Number(r.n)]));
    const log = JSON.parse(cli(['log', '--json', '-C', dir]).stdout.trim().split('\n')[0] as string) as { f2pCases: string[]; p2fCases: string[] };
    const decision = JSON.parse(git(dir, 'show', 'refs/agentdevel/rc/support-agent/iter-001:' + (git(dir, 'tag').includes('v1') ? 'releases/support-agent/v1' : 'releases/support-agent/rejected/iter-001') + '/decision.json')) as { flaky: string[]; policy: string };
    const flipped = log.f2pCases.length + log.p2fCases.length + decision.flaky.length;
    expect(decision.policy).toBe('stochastic');
    expect(count.baseline).toBe(44);
    expect(count.candidate).toBe(44);
    expect(count.confirm).toBeGreaterThan(0);
    expect((count.baseline ?? 0) + (count.candidate ?? 0) + (count.confirm ?? 0)).toBeLessThanOrEqual(44 + 44 + 3 * flipped);
    const report = git(dir, 'show', 'refs/agentdevel/rc/support-agent/iter-001:' + (git(dir, 'tag').includes('v1') ? 'releases/support-agent/v1' : 'releases/support-agent/rejected/iter-001') + '/report.md');
    expect(report).toMatch(/## Flaky cases \(apart from regressions\)/);
    expect(report).toMatch(/## Regressions \(pass → fail\)/);
  });
});

describe('noise floors', () => {
  it('calibrate reports the flip rate of the release against itself and the critic disagreement', async () => {
    const dir = await exampleWorkspace();
    const manifest = path.join(dir, 'blueprints/support-agent/blueprint.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"temperature": 0', '"temperature": 0.6'));
    git(dir, 'commit', '-qam', 'a sampled agent');
    const result = cli(['calibrate', '--critic', '--repeats', '2', '--trials', '2', '--json', '-C', dir]);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as { agent: { flipRate: number; decision: string; flaky: string[]; cases: number }; critic: { passDisagreement: number; records: number; repeats: number } };
    expect(json.agent.cases).toBe(44);
    expect(json.agent.flipRate).toBeGreaterThan(0);
    expect(json.agent.decision).toBe('accept');
    expect(json.critic).toMatchObject({ records: 88, repeats: 2, passDisagreement: 0 });
    // The A/A runs are remembered: their flaky cases are in the store's flaky history now.
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    const varied = sql.all(`SELECT r.case_id FROM records r GROUP BY r.case_id HAVING SUM(r.pass) > 0 AND SUM(r.pass) < COUNT(r.pass)`);
    sql.close();
    expect(varied.length).toBeGreaterThan(0);
  });
});
