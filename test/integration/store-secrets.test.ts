// The store redacts every text it writes, whichever way it came: a record, a critic's verdict kept
// for reuse, a label's definition, a decision's reasons. A real SQLite file, read back as raw bytes
// with its -wal and -shm files, holds no secret this process knows, in any of its written forms.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/adapters/store/store.ts';
import { declareSecrets } from '../../src/domain/environment.ts';
import { caseRecord } from '../helpers/records.ts';
import { tempDir } from '../helpers/workspace.ts';

const clock = { now: () => new Date('2026-11-27T10:00:00Z') };
const API_KEY = `sk-ant-store-${process.pid}-canary`;
const TOKEN = `tok-store-${process.pid}-canary`;

describe('the store at rest', () => {
  it('holds no declared secret in its file, its WAL or its shared memory, whatever wrote it', () => {
    declareSecrets([API_KEY, TOKEN]);
    const dir = tempDir('agentdevel-store-secrets-');
    const store = Store.open(dir, clock);
    store.createRun('run-1', { cacheKey: 'k', blueprint: 'bp', commit: 'c', blueprintTree: 't1', taskTree: 't2', split: 'train', trials: 1, agentModel: 'mock', criticModel: 'mock', simulated: true }, 'baseline');
    const echoed = `paying with ${API_KEY} as ${TOKEN}`;
    store.saveRecords('run-1', [caseRecord('c1', false, { output: { text: echoed, nested: JSON.stringify({ key: API_KEY }) }, error: `stderr: ${TOKEN}` })], [{ label: 'leaks_key', description: echoed }]);
    store.saveCriticVerdict('verdict-1', { pass: false, label: 'leaks_key', description: echoed }, 'scope');
    store.saveDecision({ blueprint: 'bp', iteration: 1, candidateRef: 'rc', candidateCommit: 'c', baselineRun: 'run-1', candidateRun: null, outcome: 'rejected', reasons: [`check failed: ${echoed}`], intent: { targets: ['x'], rationale: TOKEN }, tag: null, auditRef: null, recordedCommit: null, f2p: [], p2f: [] });
    // Read while open (the WAL holds the pages not yet checkpointed), and again once closed.
    const files = () => readdirSync(path.join(dir, '.agentdevel')).filter((f) => f.startsWith('state.db'));
    const bytes = () => files().map((f) => readFileSync(path.join(dir, '.agentdevel', f), 'latin1')).join('\n');
    expect(files()).toContain('state.db-wal');
    const open = bytes();
    expect(store.keptVerdict('verdict-1')?.verdict.description).toBe('paying with [redacted] as [redacted]');
    store.close();
    for (const text of [open, bytes()]) {
      expect(text).toContain('[redacted]');
      for (const secret of [API_KEY, TOKEN]) expect(text).not.toContain(secret);
    }
  });

  it('keeps identifiers as written and JSON whole, when a declared value is short (a port, a flag)', () => {
    declareSecrets(['5432', 'true']);
    const store = Store.open(tempDir('agentdevel-store-secrets-'), clock);
    store.createRun('run-5432', { cacheKey: 'k5432', blueprint: 'bp', commit: 'c5432', blueprintTree: 't1', taskTree: 't2', split: 'train', trials: 1, agentModel: 'mock', criticModel: 'mock', simulated: true }, 'baseline');
    store.saveRecords('run-5432', [caseRecord('case-5432', true, { output: { port: '5432', ok: true } })]);
    store.saveCriticVerdict('key-5432', { pass: true, label: 'ok', description: 'connected on 5432' }, 'scope');
    expect(store.keptVerdict('key-5432')?.verdict).toEqual({ pass: true, label: 'ok', description: 'connected on [redacted]' });
    expect(store.records('run-5432')).toMatchObject([{ caseId: 'case-5432', output: { port: '[redacted]', ok: true } }]);
    store.close();
  });
});
