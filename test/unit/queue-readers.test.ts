// What the coordinator and the workers read off the queue once a tag has proven who wrote it:
// the full schema check on the first result of each worker (the first job of each version),
// the shape alone for the rest (job.ts).
import { describe, expect, it } from 'vitest';
import { caseTrialJobReader, caseTrialResultReader, JOB_SCHEMA, serializedJob, type CaseTrialJob } from '../../src/adapters/queue/job.ts';

const ran = (worker: string, events: unknown[] = [{ type: 'final', output: { answer: 42 } }]) => ({ kind: 'ran', events, output: { answer: 42 }, observation: null, usage: [], worker });

const job = (tree: string, id: string): CaseTrialJob => ({
  schema: JOB_SCHEMA,
  snapshot: { commit: 'a'.repeat(40), tree, bundleKey: tree, bundleBytes: 1000, source: 'a'.repeat(40), remote: null },
  blueprint: 'bp',
  task: 'orders',
  testCase: { id },
  trial: 0,
  agentModel: 'mock',
  callTimeoutMs: 1000,
  memoryMb: 256,
  isolation: 'shared',
  passEnv: [],
});

describe('results read by the coordinator', () => {
  it('checks every trace event of the first result of each worker, and the shape of the others', () => {
    const read = caseTrialResultReader();
    // A first result with an event that is no trace event: refused, and the worker not trusted yet.
    expect(read(ran('w1', [{ type: 'final' }, { type: 'no such event' }]))).toBeNull();
    expect(read(ran('w1'))).toEqual(ran('w1'));
    // w1's later results: their shape is checked, not each event (its code wrote them, the tag proved it).
    const later = ran('w1', [{ type: 'tool_call', name: 'lookup', args: {} }]);
    expect(read(later)).toBe(later);
    // Another worker starts with the full check again.
    expect(read(ran('w2', [{ type: 'no such event' }]))).toBeNull();
    // Whatever the worker, a value of another shape is no result.
    expect(read({ kind: 'ran', events: 'none', worker: 'w1' })).toBeNull();
    expect(read({ kind: 'infra_error', events: [], usage: [], worker: 'w1' })).toBeNull();
    expect(read(null)).toBeNull();
  });
});

describe('jobs read by a worker', () => {
  it('checks the first job of each version in full, and the fields the worker reads of the others', () => {
    const read = caseTrialJobReader();
    const tree = 'b'.repeat(40);
    expect(read({ ...job(tree, 'c1'), testCase: { id: 7 } })).toBeNull();
    expect(read(job(tree, 'c1'))).toEqual(job(tree, 'c1'));
    const next = job(tree, 'c2');
    expect(read(next)).toBe(next);
    // Another schema, or another version's first job with a bad field: refused.
    expect(read({ ...job(tree, 'c3'), schema: JOB_SCHEMA + 1 })).toBeNull();
    expect(read({ ...job('c'.repeat(40), 'c4'), blueprint: '' })).toBeNull();
  });

  it('names a job by its content, serialized once for its id and its tag', () => {
    const { id, body } = serializedJob(job('b'.repeat(40), 'c1'));
    expect(body).toBe(JSON.stringify(job('b'.repeat(40), 'c1')));
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(serializedJob(job('b'.repeat(40), 'c2')).id).not.toBe(id);
  });
});
