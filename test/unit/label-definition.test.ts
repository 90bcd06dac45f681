// A coined label's definition comes from what its cases share, with one case's words as an example only.
import { describe, expect, it } from 'vitest';
import { addLabelEvidence, caseTrialFeatures, labelDefinition, type LabelEvidence } from '../../src/domain/label-definition.ts';

const failing = (code: string) => ({ scorer: { pass: false, checks: [{ scorer: 'state', pass: false, code }, { scorer: 'cost', pass: false, decides: false }] }, critic: { pass: false, label: 'x_y', description: 'd', requirements: [{ id: 'confirm', pass: false, reason: 'r' }] } });
const trace = [
  { type: 'tool_call' as const, id: 't1', name: 'get_order', args: {} },
  { type: 'tool_result' as const, id: 't1', ok: false, error: 'not found' },
];

function evidenceOf(cases: Array<{ caseId: string; features: string[]; description?: string }>): LabelEvidence {
  let evidence: LabelEvidence | undefined;
  cases.forEach((c, at) => (evidence = addLabelEvidence(evidence, { at: cases.length - at, caseId: c.caseId, description: c.description ?? `${c.caseId} said so`, features: c.features })));
  return evidence as LabelEvidence;
}

describe('a coined label’s definition', () => {
  it('names the failed decisive checks, failed tool calls and broken requirements of a case-trial', () => {
    expect(caseTrialFeatures(failing('state_mismatch'), trace)).toEqual(["the state scorer's check state_mismatch", 'a get_order call that failed', 'the requirement "confirm" broken']);
  });

  it.each([
    { name: 'shared by all, and by most', cases: [{ caseId: 'c1', features: ['a', 'b'] }, { caseId: 'c2', features: ['a', 'b'] }, { caseId: 'c3', features: ['a'] }], text: /^the critic's label for 3 cases when it was coined: all 3 show a; most show b \(2 of 3\)\. Example \(c3\): c3 said so$/ },
    { name: 'nothing common', cases: [{ caseId: 'c1', features: ['a'] }, { caseId: 'c2', features: ['b'] }, { caseId: 'c3', features: [] }], text: /^the critic's label for 3 cases when it was coined: no failed check, tool call or requirement is common to them\./ },
    { name: 'one case', cases: [{ caseId: 'c1', features: ['a'] }], text: /^the critic's label for one case when it was coined: a\. Example \(c1\)/ },
  ])('$name', ({ cases, text }) => {
    expect(labelDefinition(evidenceOf(cases))).toMatch(text);
  });
});
