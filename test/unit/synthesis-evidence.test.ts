import { describe, expect, it } from 'vitest';
import type { CaseRecord } from '../../src/domain/record.ts';
import { estimateTokens, synthesisEvidence } from '../../src/pipeline/loop/synthesis-evidence.ts';
import { caseRecord } from '../helpers/records.ts';

const report = {
  summary: 's',
  totals: { records: 6, failing: 6, infraErrors: 0 },
  dominantSymptoms: [
    { label: 'wrong_offset', count: 4, share: 0.67, description: 'd' },
    { label: 'no_unit', count: 2, share: 0.33, description: 'd' },
  ],
  patterns: [],
  representativeCases: [],
  affectedSurface: [{ label: 'no_unit', caseIds: ['c5', 'c6'] }],
};
const cases = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => ({ id, input: `convert ${id}`, expected: { answer: 212 } }));
/** A failing record the scorer explains, with the critic's label or none. */
const record = (caseId: string, label: string | null): CaseRecord =>
  caseRecord(caseId, false, {
    output: { answer: 180 },
    traceRef: caseId,
    scorer: { pass: false, checks: [{ scorer: 'numeric', pass: false, where: 'answer', expected: 212, actual: 180 }] },
    critic: label ? { pass: false, label, description: 'x' } : null,
  });
const records = [record('c1', 'wrong_offset'), record('c2', 'wrong_offset'), record('c3', 'wrong_offset'), record('c4', 'wrong_offset'), record('c5', null), record('c6', null)];
const trace = async (r: CaseRecord) => [
  { type: 'start' as const, caseId: r.caseId, trial: 0 },
  { type: 'llm' as const, model: 'm', inputTokens: 1, outputTokens: 1, latencyMs: 1, stopReason: 'end_turn' },
  { type: 'final' as const, output: r.output },
];

describe('the evidence the synthesizer sees', () => {
  it('gives every dominant symptom its first failing case before any gets a second, within the token budget', async () => {
    const one = estimateTokens((await synthesisEvidence(report, records, cases, trace, { tokens: 100_000, casesPerSymptom: 1 })).symptoms[0]?.cases[0]);
    const evidence = await synthesisEvidence(report, records, cases, trace, { tokens: one * 3, casesPerSymptom: 3 });
    expect(evidence.symptoms.map((s) => [s.label, s.cases.map((c) => c.caseId), s.notShown])).toEqual([
      ['wrong_offset', ['c1', 'c2'], 2],
      ['no_unit', ['c5'], 1],
    ]);
    expect(evidence.usedTokens).toBeLessThanOrEqual(evidence.budgetTokens);
    const shown = evidence.symptoms[0]?.cases[0];
    expect(shown).toMatchObject({ input: { id: 'c1', input: 'convert c1' }, expected: { answer: 212 }, output: { answer: 180 }, reason: 'numeric scorer: expected 212 at answer, got 180 · critic: wrong_offset' });
    // The excerpt is what happened, without model metadata.
    expect(shown?.traceExcerpt.map((e) => e.type)).toEqual(['start', 'final']);
    expect((await synthesisEvidence(report, records, cases, trace, { tokens: 0, casesPerSymptom: 3 })).usedTokens).toBe(0);
  });
});
