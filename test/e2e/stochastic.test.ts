import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSql } from '../../src/adapters/store/sqlite.ts';
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
  worseOverall: { worse: number; better: number; pValue: number; level: number };
  procedure: { kind: string; guarantee: string };
  power: { likely: { regressions: Array<{ caseId: string; pValue: number }>; confirmable: boolean; trialsNeeded: number; trialsForPower: number }; aggregate: { pairs: number; level: number }; text: string[] };
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
    // The pass rate is pass^1, the mean per-case pass share (not a majority vote with ties failing).
    expect(json.baseline.passRate).toBeCloseTo(16.25 / 20, 6);
    const traces = path.join(dir, 'traces');
    const run = readdirSync(traces)[0] as string;
    const sample = readFileSync(path.join(traces, run, readdirSync(path.join(traces, run))[0] as string), 'utf8');
    expect(sample).not.toContain('SYSTEM PROMPT');
    expect(sample).toContain('"type":"tool_call"');
  });

  it('accepts an A/A comparison of two disjoint trial sets of one version: its moves are noise', () => {
    const dir = tempDir('agentdevel-tau-');
    importRun(dir, 'baseline.json', 'A', '0,1');
    importRun(dir, 'baseline.json', 'B', '2,3');
    const { code, json } = compare(dir, 'A', 'B');
    expect(json.decision).toBe('accept');
    expect(code).toBe(0);
    expect(json.flips.flaky.length).toBeGreaterThan(0);
    expect(json.flips.flaky).toEqual([...json.flips.p2f, ...json.flips.f2p].sort());
    expect(json.significant.regressions).toEqual([]);
    expect(json.procedure.guarantee).toMatch(/an unchanged agent is rejected at most 5.0% of the time/);
  });

  it('accepts a run compared with itself', () => {
    const dir = tempDir('agentdevel-tau-');
    importRun(dir, 'baseline.json', 'base');
    const { code, json } = compare(dir, 'base', 'base');
    expect(json.decision).toBe('accept');
    expect(code).toBe(0);
  });

  it('rejects a candidate in which ten always-passing cases always fail: worse overall by the paired test', () => {
    const dir = tempDir('agentdevel-tau-');
    importRun(dir, 'baseline.json', 'base');
    importRun(dir, 'candidate.json', 'cand');
    const { code, json } = compare(dir, 'base', 'cand');
    expect(code).toBe(1);
    expect(json.decision).toBe('reject');
    expect(json.flips.p2f).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(json.worseOverall).toMatchObject({ worse: 10, better: 0 });
    expect(json.worseOverall.pValue).toBeCloseTo(2 ** -10, 6);
    // Recorded runs cannot be re-run: with 4 trials a side no single case reaches the corrected
    // level (1/70 > 0.025/14), so no case is named; the gate, which can confirm, names them.
    expect(json.significant.regressions).toEqual([]);
    expect(json.reasons.join(' ')).toMatch(/worse than the baseline overall: in 10 of the moved cases that differ, 10 dropped/);
    // Where nothing can be re-run, the likely regressions are listed, with what a confirmation would take.
    expect(json.power.likely.regressions.slice(0, 10).map((r: { caseId: string }) => r.caseId).sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  it('compares two 2-trial imports: lists the ten broken tasks first among the likely regressions, and says no single case could be confirmed', () => {
    const dir = tempDir('agentdevel-tau-');
    importRun(dir, 'baseline.json', 'base2', '0,1');
    importRun(dir, 'candidate.json', 'cand2', '0,1');
    const { json } = compare(dir, 'base2', 'cand2');
    const broken = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
    expect(json.significant.regressions).toEqual([]);
    expect(json.power.likely.regressions.slice(0, 10).map((r: { caseId: string }) => r.caseId).sort()).toEqual(broken);
    expect(json.power.likely.confirmable).toBe(false);
    const plain = cli(['compare', 'base2', 'cand2', '-C', dir]).stdout;
    expect(plain).toMatch(/No single case could be confirmed at these trial counts: with 2 against 2 trials the smallest one-sided p-value is 0\.17/);
    expect(plain).toMatch(/\d+ trials a side is the fewest at which a case that always passed and now always fails could reach it/);
    // What it would take with power, and what the paired test could see, in the JSON and in words.
    expect(json.power.likely.trialsForPower).toBeGreaterThan(json.power.likely.trialsNeeded);
    expect(plain).toMatch(/To confirm a case whose pass chance falls by 0\.6 from 100% with 80% power would take about \d+ trials a side/);
    expect(json.power.aggregate).toMatchObject({ level: json.worseOverall.level });
    expect(json.power.aggregate.pairs).toBeGreaterThan(10);
    expect(plain).toMatch(/The paired test over the \d+ cases (detects with 80% power a common drop of [\d.]+|could not detect any common drop)/);
    expect(plain).toMatch(/Likely regressions, unconfirmed, most likely first: (\d \(p = 0\.17\), ){9}\d \(p = 0\.17\)/);
    expect(plain).toMatch(/At a false discovery rate of 5% \(Benjamini–Hochberg; a label for review, never used to promote\)/);
  });

  it('imports an agent-side error (info.error, empty trajectory) as an infrastructure error, never a flip', () => {
    const dir = tempDir('agentdevel-tau-');
    const entries = JSON.parse(readFileSync(path.join(fixtures, 'baseline.json'), 'utf8')) as Array<{ task_id: number; trial: number; reward: number; info: unknown; traj: unknown[] }>;
    const outage = entries.map((e) => (e.task_id === 0 && e.trial === 0 ? { ...e, reward: 0, info: { error: 'openai.APIConnectionError: Connection error.', traceback: 'Traceback ...' }, traj: [] } : e));
    const file = path.join(dir, 'outage.json');
    writeFileSync(file, JSON.stringify(outage.filter((e) => e.trial === 0)));
    importRun(dir, 'baseline.json', 'clean', '0');
    const imported = cli(['import', 'taubench', file, '--name', 'outage', '--json', '-C', dir]);
    expect(JSON.parse(imported.stdout)).toMatchObject({ infraErrors: 1 });
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    const record = sql.get<{ status: string; pass: number | null }>(`SELECT r.status AS status, r.pass AS pass FROM records r JOIN runs ON runs.id = r.run_id WHERE runs.name = 'outage' AND r.case_id = '0'`);
    sql.close();
    expect(record).toEqual({ status: 'infra_error', pass: null });
    const { json } = compare(dir, 'clean', 'outage');
    expect([...json.flips.p2f, ...json.flips.f2p]).not.toContain('0');
    expect(json.decision).toBe('accept');
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

describe('confirmation on fresh trials', () => {
  it('re-runs only the selected cases, equally on both sides, and records the evidence in the decision and the report', async () => {
    const dir = await exampleWorkspace();
    const result = cli(['iterate', '--max-iterations', '1', '--json', '-C', dir]);
    expect(result.code).toBe(0);
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    const count = Object.fromEntries(
      sql.all<{ purpose: string; n: number }>(`SELECT runs.purpose AS purpose, COUNT(*) AS n FROM records JOIN runs ON runs.id = records.run_id GROUP BY runs.purpose`).map((r) => [r.purpose, Number(r.n)]),
    );
    // Fresh trials per case and side (a side is a blueprint version).
    const fresh = sql.all<{ case_id: string; blueprint_tree: string; n: number }>(
      `SELECT r.case_id AS case_id, runs.blueprint_tree AS blueprint_tree, COUNT(*) AS n FROM records r JOIN runs ON runs.id = r.run_id WHERE runs.purpose = 'confirm' GROUP BY r.case_id, runs.blueprint_tree`,
    );
    sql.close();
    const ref = 'refs/agentdevel/rc/support-agent/iter-001';
    const folder = git(dir, 'tag').includes('v1') ? 'releases/support-agent/v1' : 'releases/support-agent/rejected/iter-001';
    const decision = JSON.parse(git(dir, 'show', `${ref}:${folder}/decision.json`)) as {
      schema: string;
      baseline: { recordRunIds: string[] };
      gate: { policy: string; power: { text: string[] }; tests: Array<{ caseId: string; confirmation: { baseline: { graded: number }; candidate: { graded: number } } }> };
    };
    expect(decision.schema).toBe('agentdevel/decision@3');
    expect(decision.gate.policy).toBe('stochastic');
    // The release's screen is three records of 44 cases; the candidate's, one.
    expect(decision.baseline.recordRunIds).toHaveLength(3);
    expect(count.baseline).toBe(3 * 44);
    expect(count.candidate).toBe(44);
    const moved = decision.gate.tests.map((t) => t.caseId).sort();
    expect(moved.length).toBeGreaterThan(0);
    expect([...new Set(fresh.map((f) => f.case_id))].sort()).toEqual(moved);
    for (const id of moved) {
      const sides = fresh.filter((f) => f.case_id === id).map((f) => f.n);
      expect(sides).toHaveLength(2);
      expect(sides[0]).toBe(sides[1]);
      const test = decision.gate.tests.find((t) => t.caseId === id);
      expect(test?.confirmation.baseline.graded).toBe(sides[0]);
    }
    // report.md escapes every punctuation mark of the text it quotes; read it as it renders.
    const report = git(dir, 'show', `${ref}:${folder}/report.md`).replace(/\\([!-/:-@[-`{-~])/g, '$1');
    expect(report).toMatch(/## How the gate decided/);
    expect(report).toMatch(/\*\*Guarantee:\*\* an unchanged agent is rejected at most 5\.0% of the time/);
    expect(report).toMatch(/\| case \| tested for \| screening \(baseline → candidate\) \| fresh trials \(baseline → candidate\) \| p \| Holm-adjusted p \| verdict \|/);
    // The decision states what it could have seen, in the document and in words in the report.
    expect(decision.gate.power.text.join(' ')).toMatch(/with 80% power/);
    expect(report).toMatch(/### What this gate could see\n\n- .*with 80% power/);
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
