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
