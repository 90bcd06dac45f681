// Why a version's run was not reused: the part of the cache key that differs from the run recorded before.
import { describe, expect, it } from 'vitest';
import { rerunReason, type RecordedFingerprint, type RunFingerprint } from '../../src/domain/run-fingerprint.ts';

const now: RunFingerprint = { taskTree: 't1', split: 'train', trials: 1, agentModel: 'mock', criticModel: 'mock', keyParts: { format: 3, criticPolicy: 'failing', cases: null, firstTrial: 0, criticSeesBlueprint: false } };
const recorded = (change: Partial<RecordedFingerprint> = {}): RecordedFingerprint => ({ ...now, runId: 'run-a', status: 'complete', origin: 'git', ...change });
const names = { task: 'orders' };

describe('rerunReason', () => {
  it.each([
    { name: 'nothing recorded', candidates: [], reason: /^no run of this blueprint version is recorded/ },
    { name: 'trials', candidates: [recorded({ trials: 3 })], reason: /\(run run-a, recorded in git\) differs: trials 3 then, 1 now$/ },
    { name: 'task and critic model', candidates: [recorded({ taskTree: 't0', criticModel: 'claude-sonnet-5-5' })], reason: /differs: the task \(rubrics\/orders: .*\) changed; models\.critic "claude-sonnet-5-5" then, "mock" now$/ },
    { name: 'critic policy', candidates: [recorded({ keyParts: { ...now.keyParts, criticPolicy: 'all' } })], reason: /differs: the critic policy "all" then, "failing" now$/ },
    { name: 'record format', candidates: [recorded({ keyParts: { ...now.keyParts, format: 2 } })], reason: /differs: agentdevel's record format 2 then, 3 now/ },
    { name: 'a failed run', candidates: [recorded({ status: 'failed', origin: 'local' })], reason: /\(run run-a\) had infrastructure errors, and such a run is never reused$/ },
    { name: 'parts not recorded (runs@1)', candidates: [recorded({ keyParts: null })], reason: /was recorded without its critic policy and record format/ },
    { name: 'the run of the same first trial is preferred', candidates: [recorded({ runId: 'run-b', keyParts: { ...now.keyParts, firstTrial: 3 } }), recorded({ trials: 2 })], reason: /\(run run-a, recorded in git\) differs: trials 2 then/ },
  ])('$name', ({ candidates, reason }) => {
    expect(rerunReason(candidates, now, names)).toMatch(reason);
  });
});
