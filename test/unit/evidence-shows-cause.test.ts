import { describe, expect, it } from 'vitest';
import { blueprintBrief } from '../../src/adapters/blueprint/brief.ts';
import { messagesParams, synthesizerCall } from '../../src/adapters/engines/anthropic/requests.ts';
import { currentRoleFacts } from '../../src/adapters/engines/runtime-facts.ts';
import type { BlueprintComponent } from '../../src/domain/blueprint-components.ts';
import type { DiagnosisReport } from '../../src/domain/diagnosis.ts';
import type { CaseRecord } from '../../src/domain/record.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { synthesisEvidence } from '../../src/pipeline/loop/synthesis-evidence.ts';
import { buildGradient } from '../../src/stages/gradient/build.ts';
import { caseRecord } from '../helpers/records.ts';

// A crew whose member `lookup` calls a wrong wrapper: `convert_currency` returns 180 where 212
// is right. The orchestrator passes the figure on; the scorer finds 180 in the answer, and the
// critic finds the reply does show a conversion (the requirement holds).
const component = (id: string, kind: BlueprintComponent['kind'], name: string): BlueprintComponent => ({ id, kind, name, path: null, files: [], description: '', signature: id });
const components = [
  component('orchestrator', 'orchestrator', 'orchestrator'),
  component('member:lookup', 'member', 'lookup'),
  component('tool:find_customer', 'tool', 'find_customer'),
  component('tool:convert_currency', 'tool', 'convert_currency'),
];
const requirement = { id: 'reply-shows-conversion', text: 'The reply shows the converted amount.', symptoms: [] };

/** A long conversation: the wrong figure appears in the member's wrapper result, in the middle. */
function trace(caseId: string): TraceEvent[] {
  const chatter = (n: number): TraceEvent[] =>
    Array.from({ length: n }, (_, i) => [
      { type: 'tool_call', agent: 'orchestrator', id: `n${n}-${i}`, name: 'find_customer', args: { email: `someone${i}@example.com` } },
      { type: 'tool_result', agent: 'orchestrator', id: `n${n}-${i}`, ok: true, result: { customer: `customer number ${i} found in the back office records` } },
    ] as TraceEvent[]).flat();
  return [
    { type: 'start', caseId, trial: 0 },
    { type: 'message', role: 'user', agent: 'orchestrator', text: 'How much is my 100 USD refund in EUR?' },
    ...chatter(8),
    { type: 'tool_call', agent: 'orchestrator', id: 'm1', name: 'lookup', args: { context: 'convert 100 USD' } },
    { type: 'tool_call', agent: 'lookup', id: 'c1', name: 'convert_currency', args: { amount: 100, from: 'USD', to: 'EUR' } },
    { type: 'tool_result', agent: 'lookup', id: 'c1', ok: true, result: { amount: 180, currency: 'EUR' } },
    { type: 'message', role: 'assistant', agent: 'lookup', text: 'ORDER {"refund": "180 EUR"}' },
    { type: 'tool_result', agent: 'orchestrator', id: 'm1', ok: true, result: 'ORDER {"refund": "180 EUR"}' },
    ...chatter(8),
    { type: 'message', role: 'assistant', agent: 'orchestrator', text: 'Your refund is 180 EUR.' },
    { type: 'final', agent: 'orchestrator', output: { answer: 180 } },
  ];
}
const record = (caseId: string): CaseRecord =>
  caseRecord(caseId, false, {
    output: { answer: 180 },
    traceRef: caseId,
    scorer: { pass: false, checks: [{ scorer: 'numeric', pass: false, where: 'answer', expected: 212, actual: 180 }] },
    critic: { pass: false, label: 'wrong_amount', description: 'the amount is wrong', requirements: [{ id: requirement.id, pass: true, reason: 'it shows one' }] },
  });
const ids = ['c1', 'c2', 'c3', 'c4'];
const records = ids.map(record);
const report: DiagnosisReport = {
  summary: 'Refund amounts are wrong.',
  totals: { records: 4, failing: 4, infraErrors: 0 },
  dominantSymptoms: [{ label: 'wrong_amount', count: 4, share: 1, description: 'the refund amount differs from the expected one' }],
  patterns: [],
  representativeCases: [],
  affectedSurface: [{ label: 'wrong_amount', caseIds: ids }],
};

describe('the evidence of a crew whose member wrapper is wrong', () => {
  it('charges the wrapper with the scorer failures, and shows its call and result to the synthesizer', async () => {
    const gradient = buildGradient({
      iteration: 1,
      blueprint: 'crew',
      release: 'crew/v1',
      runId: 'run-1',
      components,
      trials: records.map((r) => ({ record: r, trace: trace(r.caseId), requirements: [requirement] })),
    });
    const wrapper = gradient.components.find((c) => c.component === 'tool:convert_currency');
    expect(wrapper?.fulfilled).toEqual([]);
    expect(wrapper?.introducedErrors.map((e) => e.caseId)).toEqual(ids);
    expect(wrapper?.introducedErrors[0]?.message).toContain('expected 212 at answer, got 180');
    // The wrapper that answered correctly is not charged.
    expect(gradient.components.find((c) => c.component === 'tool:find_customer')?.introducedErrors).toEqual([]);

    const cases = ids.map((id) => ({ id, input: `refund ${id}`, expected: { answer: 212 } }));
    const evidence = await synthesisEvidence(report, records, cases, async (r) => trace(r.caseId), { tokens: 2500, casesPerSymptom: 3 }, gradient);
    const shown = evidence.symptoms[0]?.cases ?? [];
    expect(shown.length).toBeGreaterThan(0);
    for (const item of shown) {
      expect(item.omittedEvents).toBeGreaterThan(0);
      expect(item.traceExcerpt).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'tool_call', agent: 'lookup', name: 'convert_currency' }),
          expect.objectContaining({ type: 'tool_result', agent: 'lookup', id: 'c1', result: { amount: 180, currency: 'EUR' } }),
        ]),
      );
    }
    // The budget is used, not left idle.
    expect(evidence.usedTokens).toBeLessThanOrEqual(2500);
    expect(evidence.usedTokens).toBeGreaterThan(2500 * 0.9);
    // With room for everything, the whole trace is shown.
    const roomy = await synthesisEvidence(report, records, cases, async (r) => trace(r.caseId), { tokens: 100_000, casesPerSymptom: 1 }, gradient);
    expect(roomy.symptoms[0]?.cases[0]?.omittedEvents).toBe(0);

    const call = synthesizerCall(
      { model: 'claude', blueprintName: 'crew', blueprintRoot: 'blueprints/crew', blueprint: blueprintBrief('crew'), files: [], diagnosis: report, evidence, history: [], taxonomy: [], task: { rubric: '', environmentApi: null }, repair: null, gradient },
      currentRoleFacts({ now: () => new Date('2026-01-01T00:00:00Z') }),
    );
    const body = JSON.stringify(messagesParams(call));
    expect(body).toMatch(/\\"agent\\": \\"lookup\\",\\n\s*\\"id\\": \\"c1\\",\\n\s*\\"name\\": \\"convert_currency\\"/);
  });
});
