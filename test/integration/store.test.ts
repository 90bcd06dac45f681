import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { zeroUsage } from '../../src/domain/ports/model.ts';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { migrations } from '../../src/adapters/store/migrations.ts';
import { Store } from '../../src/adapters/store/store.ts';
import { tempDir } from '../helpers/workspace.ts';
import { caseRecord } from '../helpers/records.ts';

const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
const identity = {
  cacheKey: 'k1',
  blueprint: 'bp',
  commit: 'c1',
  blueprintTree: 't1',
  taskTree: 't2',
  split: 'train',
  trials: 1,
  agentModel: 'mock',
  criticModel: 'mock',
  simulated: true,
};

describe('the store', () => {
  it('migrates a new database to the latest schema, and is idempotent', () => {
    const dir = tempDir();
    Store.open(dir, clock).close();
    Store.open(dir, clock).close();
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    expect((sql.pragma('user_version') as Array<{ user_version: number }>)[0]?.user_version).toBe(migrations.length);
    expect(sql.all(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).map((r) => r.name)).toEqual(
      expect.arrayContaining(['decisions', 'flips', 'model_calls', 'records', 'runs', 'symptoms', 'test_evaluations']),
    );
    sql.close();
  });

  it('reuses only complete runs with the same identity', () => {
    const store = Store.open(tempDir(), clock);
    store.createRun('run-1', identity, 'baseline');
    expect(store.findCompleteRun('k1')).toBeUndefined();
    store.saveRecord('run-1', caseRecord('a', true, { output: { x: 1 }, traceRef: 'run-1/a.t0.jsonl', scorer: { pass: true, checks: [] } }));
    store.saveRecord('run-1', caseRecord('b', null, { traceRef: 'run-1/b.t0.jsonl', error: 'agent: 529' }));
    store.finishRun('run-1', 'complete');
    const run = store.findCompleteRun('k1');
    expect(run).toMatchObject({ id: 'run-1', cases: 2, passed: 1, infraErrors: 1, simulated: true });
    expect(store.records('run-1').map((r) => [r.caseId, r.pass, r.status])).toEqual([
      ['a', true, 'ok'],
      ['b', null, 'infra_error'],
    ]);
    expect(store.findCompleteRun('other')).toBeUndefined();
    store.close();
  });

  it('keeps runs and labels read only from refs apart: found by id, never reused nor sent to a model; the line\u2019s copy replaces them', () => {
    const store = Store.open(tempDir(), clock);
    const forged = [caseRecord('a', false, { traceRef: 'x/a.t0.jsonl' })];
    expect(store.importRun('run-r', identity, 'baseline', 'complete', forged, 'ref')).toBe(true);
    expect(store.importRun('run-new', { ...identity }, 'baseline', 'complete', forged, 'ref')).toBe(true);
    store.addSymptom('wrong_answer', 'forged description', null, 'ref');
    // Shown when asked for by id (and by show when nothing else graded the case); reused by nothing.
    expect(store.run('run-r')?.origin).toBe('ref');
    expect(store.latestRunWithCase('a', null)?.origin).toBe('ref');
    expect([store.findCompleteRun('k1'), store.latestRun('t1', 't2', 'train'), store.newestRun(), store.variedCases('t2'), store.taxonomy(), store.recordedTaxonomy()]).toEqual([undefined, undefined, undefined, 0, [], []]);
    expect(store.labelsFromRefs()).toEqual([{ label: 'wrong_answer', description: 'forged description' }]);
    // The line's copy of the same run id and label wins; a ref never overrides the line.
    expect(store.importRun('run-r', identity, 'baseline', 'complete', [caseRecord('a', true, { traceRef: 'x/a.t0.jsonl' })], 'git')).toBe(true);
    store.addSymptom('wrong_answer', 'the line\u2019s description', null, 'git');
    expect(store.importRun('run-r', identity, 'baseline', 'complete', forged, 'ref')).toBe(false);
    store.addSymptom('wrong_answer', 'forged again', null, 'ref');
    expect(store.findCompleteRun('k1')).toMatchObject({ id: 'run-r', origin: 'git', passed: 1 });
    expect(store.taxonomy()).toEqual([{ label: 'wrong_answer', description: 'the line\u2019s description' }]);
    expect(store.labelsFromRefs()).toEqual([]);
    // A document read from a ref is read again once the line holds it.
    store.markImported('blob-1', 'releases/bp/aaa/runs.json', 'ref');
    expect(store.importedDocuments().get('blob-1')).toBe('ref');
    store.markImported('blob-1', 'releases/bp/v1/runs.json', 'git');
    store.markImported('blob-1', 'releases/bp/aaa/runs.json', 'ref');
    expect(store.importedDocuments().get('blob-1')).toBe('git');
    store.close();
  });

  it('reads again what an older store read from git without telling the line from other refs', () => {
    const dir = tempDir();
    const file = path.join(dir, '.agentdevel', 'state.db');
    Store.open(dir, clock).close();
    const sql = openSql(file);
    // The store as the release before this one left it: one migration fewer, a run and a label read from git.
    sql.exec(`DROP TABLE git_documents; CREATE TABLE git_documents (blob TEXT PRIMARY KEY, path TEXT NOT NULL, imported_at TEXT NOT NULL)`);
    sql.exec(`CREATE TABLE symptoms_old AS SELECT label, description, first_seen_at, first_seen_run FROM symptoms; DROP TABLE symptoms; ALTER TABLE symptoms_old RENAME TO symptoms`);
    // Every migration from the one that tells the line from other refs on is undone (the budget's stopped_runs and judge once's keys came after it).
    const trust = migrations.findIndex((m) => m.includes('ALTER TABLE git_documents ADD COLUMN origin'));
    expect(trust).toBeGreaterThan(0);
    sql.exec(`DROP TABLE IF EXISTS stopped_runs`);
    sql.exec(`ALTER TABLE records DROP COLUMN verdict_key; ALTER TABLE critic_verdicts DROP COLUMN on_line; ALTER TABLE critic_verdicts DROP COLUMN scope`);
    sql.pragma(`user_version = ${trust}`);
    sql.run(`INSERT INTO runs (id, cache_key, blueprint, commit_sha, blueprint_tree, task_tree, split, trials, agent_model, critic_model, purpose, status, simulated, started_at, origin) VALUES ('run-g', 'k1', 'bp', 'c1', 't1', 't2', 'train', 1, 'mock', 'mock', 'baseline', 'complete', 1, '2026-11-22T09:00:00Z', 'git')`);
    sql.run(`INSERT INTO git_documents (blob, path, imported_at) VALUES ('blob-1', 'releases/bp/aaa/runs.json', '2026-11-22T09:00:00Z')`);
    sql.run(`INSERT INTO symptoms (label, description, first_seen_at, first_seen_run) VALUES ('from_git', 'read from some ref', '2026-11-22T09:00:00Z', NULL), ('seen_here', 'the critic gave it here', '2026-11-22T09:00:00Z', 'run-1')`);
    sql.close();
    const store = Store.open(dir, clock);
    expect(store.run('run-g')?.origin).toBe('ref');
    expect(store.findCompleteRun('k1')).toBeUndefined();
    expect(store.importedDocuments().size).toBe(0);
    expect(store.taxonomy().map((e) => e.label)).toEqual(['seen_here']);
    store.close();
  });

  it('grows the symptom taxonomy without ever changing a label', () => {
    const store = Store.open(tempDir(), clock);
    store.addSymptom('wrong_order', 'steps out of order', 'run-1');
    store.addSymptom('tool_error', 'a tool failed', 'run-1');
    store.addSymptom('tool_error', 'another wording', 'run-2');
    expect(store.taxonomy()).toEqual([
      { label: 'tool_error', description: 'a tool failed' },
      { label: 'wrong_order', description: 'steps out of order' },
    ]);
    store.close();
  });

  it('keeps decisions with their flips and the cost of each iteration', () => {
    const store = Store.open(tempDir(), clock);
    store.saveDecision({ blueprint: 'bp', iteration: 3, candidateRef: 'rc', candidateCommit: 'c', baselineRun: 'r1', candidateRun: 'r2', outcome: 'rejected', reasons: ['1 regression'], intent: { targets: ['x'], rationale: 'y' }, tag: null, auditRef: 'refs/agentdevel/rc/bp/iter-003', recordedCommit: 'd', f2p: ['a'], p2f: ['b'] });
    expect(store.decisions('bp')[0]).toMatchObject({ iteration: 3, outcome: 'rejected', recordedCommit: 'd', f2p: ['a'], p2f: ['b'], reasons: ['1 regression'] });
    store.recordModelCall('critic', 'claude-x', { ...zeroUsage, inputTokens: 10, costUsd: 0.5 }, { iteration: 3, runId: null });
    store.recordModelCall('synthesizer', 'claude-x', { ...zeroUsage, outputTokens: 5, costUsd: 0.25 }, { iteration: 3, runId: null });
    expect(store.costOfIteration(3)).toEqual({ costUsd: 0.75, inputTokens: 10, outputTokens: 5, calls: 2, skippedCriticCalls: 0, reusedCriticCalls: 0, savedUsd: null });
    // Critic calls not made are counts in the ledger (no row each), priced at the mean billed critic call.
    store.recordSparedCalls('critic', 'claude-x', 4, 'policy', { iteration: 3, runId: 'run-2' });
    store.recordSparedCalls('critic', 'claude-x', 2, 'reused', { iteration: 3, runId: 'run-2' });
    expect(store.costOfIteration(3)).toEqual({ costUsd: 0.75, inputTokens: 10, outputTokens: 5, calls: 2, skippedCriticCalls: 4, reusedCriticCalls: 2, savedUsd: 3 });
    expect(store.modelCallRows()).toBe(2);
    store.close();
  });
});
