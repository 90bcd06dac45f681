import { describe, expect, it } from 'vitest';
import { AgentdevelError } from '../../src/domain/errors.ts';
import {
  attemptsDocument,
  diagnosisReportDocument,
  flipsDocument,
  intentDocument,
  readAttemptsDocument,
  readDiagnosisReportDocument,
  readDiagnosisRecord,
  readFlipsDocument,
  readIntentDocument,
} from '../../src/domain/git-documents.ts';
import type { DiagnosisReport } from '../../src/domain/diagnosis.ts';

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
const row = { caseId: 'train-001', symptom: 'missing_required_step', description: 'asked nothing', reason: 'critic: missing_required_step' };

function historyError(read: () => unknown): AgentdevelError {
  try {
    read();
  } catch (error) {
    if (error instanceof AgentdevelError) return error;
    throw error;
  }
  throw new Error('expected the reader to refuse the document');
}

describe('the versioned documents written to git', () => {
  it('are written with their version and read back to what was written', () => {
    const flips = { f2p: [row], p2f: [], flaky: [{ caseId: 'c', before: '1/3', after: '2/3', fresh: '-', counted: 'x' }] };
    expect(JSON.parse(json(flipsDocument(flips)))).toMatchObject({ schema: 'agentdevel/flips@2' });
    expect(readFlipsDocument(json(flipsDocument(flips)), 'flips.json')).toEqual(flips);
    const intent = { targets: ['missing_required_step'], rationale: 'ask first' };
    expect(readIntentDocument(json(intentDocument(intent)), 'intent.json')).toEqual(intent);
    expect(readIntentDocument(json(intentDocument(null)), 'intent.json')).toBeNull();
    const attempts = { source: 'generated' as const, attempts: [{ ok: false, error: 'exit 1' }, { ok: true, error: null }] };
    expect(readAttemptsDocument(json(attemptsDocument(attempts)), 'attempts.json')).toEqual(attempts);
  });

  it('are read in the unversioned first shape that is already in git', () => {
    // flips.json before `flaky` existed, and with it.
    expect(readFlipsDocument(json({ f2p: [{ caseId: 'a', symptom: null }], p2f: [] }), 'f')).toEqual({ f2p: [{ caseId: 'a', symptom: null }], p2f: [], flaky: [] });
    expect(readFlipsDocument(json({ f2p: [row], p2f: [row], flaky: [] }), 'f').p2f).toEqual([row]);
    expect(readIntentDocument(json({ targets: ['x'], rationale: 'y' }), 'i')).toEqual({ targets: ['x'], rationale: 'y' });
    expect(readIntentDocument('null\n', 'i')).toBeNull();
    expect(readAttemptsDocument(json({ source: 'builtin', attempts: [] }), 'a')).toEqual({ source: 'builtin', attempts: [] });
  });

  it('refuse damaged history with one error naming the file and the key, never null', () => {
    const notJson = historyError(() => readFlipsDocument('{"f2p": [', 'releases/a/v1/flips.json'));
    expect(notJson.code).toBe('HISTORY_INVALID');
    expect(notJson.message).toContain('releases/a/v1/flips.json:1');
    const wrongShape = historyError(() => readFlipsDocument(json({ schema: 'agentdevel/flips@2', f2p: [{ caseId: 3 }], p2f: [] }), 'releases/a/v1/flips.json'));
    expect(wrongShape.message).toMatch(/^releases\/a\/v1\/flips\.json: f2p\[0\]\.caseId: /);
    const future = historyError(() => readAttemptsDocument(json({ schema: 'agentdevel/attempts@9', source: 'builtin', attempts: [] }), 'attempts.json'));
    expect(future.message).toContain('schema "agentdevel/attempts@9"');
    expect(historyError(() => readIntentDocument(json({ targets: 'x' }), 'intent.json')).code).toBe('HISTORY_INVALID');
  });

  it('keep a diagnosis report strict: an unknown key is damage, the version key is not', () => {
    const parsed = (text: string) => readDiagnosisReportDocument(text, 'diagnostics/a/iter-001/report.json');
    const merge = { labels: ['missing_required_step', 'skipped_confirmation'], into: 'missing_required_step', reason: 'one fault', evidence: ['train-001', 'train-002'] };
    const written = diagnosisReportDocument(validReport(), [merge]);
    expect(written.schema).toBe('agentdevel/diagnosis-report@3');
    expect(parsed(json(written))).toEqual(validReport());
    expect(readDiagnosisRecord(json(written), 'report.json')).toEqual({ report: validReport(), labelMerges: [merge] });
    // Version 2 and the unversioned first shape are read, with no merges.
    expect(readDiagnosisRecord(json({ schema: 'agentdevel/diagnosis-report@2', ...validReport() }), 'report.json')).toEqual({ report: validReport(), labelMerges: [] });
    expect(parsed(json(validReport()))).toEqual(validReport());
    expect(historyError(() => parsed(json({ ...validReport(), extra: 1 }))).code).toBe('HISTORY_INVALID');
  });
});

describe('the synthesis attempts and the test seal', () => {
  it('name their schema, and read the shape written before', async () => {
    const { synthesisAttemptsDocument, readSynthesisAttemptsDocument } = await import('../../src/domain/git-documents.ts');
    const written = synthesisAttemptsDocument(['intent.targets: "x" is not a symptom label']);
    expect(written.schema).toBe('agentdevel/synthesis-attempts@2');
    expect(readSynthesisAttemptsDocument(json(written), 'synthesis-attempts.json')).toEqual({ refused: ['intent.targets: "x" is not a symptom label'] });
    expect(readSynthesisAttemptsDocument(json({ refused: ['a'] }), 'synthesis-attempts.json')).toEqual({ refused: ['a'] });
    const { testSealSchema, TEST_SEAL_SCHEMA } = await import('../../src/domain/test-seal.ts');
    const seal = { blueprint: 'bp', release: 'bp/v1', commit: 'c', runId: 'r', passRate: 0.5, passed: 1, graded: 2, at: 't', simulated: false };
    expect(TEST_SEAL_SCHEMA).toBe('agentdevel/test-seal@2');
    expect(testSealSchema.parse({ schema: TEST_SEAL_SCHEMA, ...seal }).schema).toBe(TEST_SEAL_SCHEMA);
    expect(testSealSchema.parse({ schema: 1, ...seal }).schema).toBe(1);
    expect(testSealSchema.safeParse({ schema: 3, ...seal }).success).toBe(false);
  });
});

function validReport(): DiagnosisReport {
  return {
    summary: 'one failure',
    totals: { records: 2, failing: 1, infraErrors: 0 },
    dominantSymptoms: [{ label: 'missing_required_step', count: 1, share: 1, description: 'asked nothing' }],
    patterns: [],
    representativeCases: [{ caseId: 'train-001', label: 'missing_required_step', description: 'asked nothing' }],
    affectedSurface: [{ label: 'missing_required_step', caseIds: ['train-001'] }],
  };
}
