import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { CaseRecord } from '../../src/domain/record.ts';
import { failingCases, recordReason } from '../../src/report/case-reasons.ts';
import { renderJunit } from '../../src/report/junit.ts';
import { agentErrorAlarm, agentErrorTally } from '../../src/stages/run/agent-errors.ts';

const record = (caseId: string, trial: number, pass: boolean | null, extra: Partial<CaseRecord> = {}): CaseRecord => ({
  caseId,
  trial,
  status: pass === null ? 'infra_error' : 'ok',
  output: null,
  traceRef: `${caseId}.t${trial}.jsonl`,
  scorer: pass === null ? null : { pass, checks: [{ scorer: 'numeric', pass, ...(pass ? {} : { code: 'out_of_tolerance', where: 'answer', expected: 42, actual: 41 }) }] },
  critic: pass === false ? { pass: false, label: 'wrong_answer', description: 'The answer is off by one.' } : null,
  pass,
  error: pass === null ? 'agent: 529 overloaded after 4 retries' : null,
  ...extra,
});

describe('case reasons', () => {
  it('say why in one line: the scorer\'s expected against actual, the critic\'s label, the agent\'s error', () => {
    expect(recordReason(record('a', 0, false, { agentError: 'timed out after 3000 ms' }))).toBe('numeric scorer: expected 42 at answer, got 41 · critic: wrong_answer · agent error: timed out after 3000 ms');
    expect(recordReason(record('b', 0, null))).toBe('infra_error: agent: 529 overloaded after 4 retries');
  });

  it('list each case with a failing or ungraded trial once, with its counts', () => {
    const records = [record('a', 0, true), record('a', 1, false), record('b', 0, true), record('c', 0, null), record('c', 1, true)];
    expect(failingCases(records).map((c) => [c.caseId, c.passes, c.graded, c.infraErrors])).toEqual([
      ['a', 1, 2, 0],
      ['c', 1, 1, 1],
    ]);
  });
});

describe('JUnit', () => {
  it('has one testcase per case: a fail is a failure, an infrastructure error an error, never a failure', () => {
    const xml = renderJunit({
      suite: 'agentdevel.bp',
      records: [record('pass-1', 0, true), record('fail-1', 0, false), record('infra-1', 0, null), record('x<&"y', 0, true)],
      notes: new Map([['fail-1', 'regression (pass → fail, confirmed)']]),
    });
    expect(XMLValidator.validate(xml)).toBe(true);
    const suite = (new XMLParser({ ignoreAttributes: false }).parse(xml) as { testsuites: { testsuite: Record<string, unknown> & { testcase: Array<Record<string, unknown>> } } }).testsuites.testsuite;
    expect(suite['@_tests']).toBe('4');
    expect(suite['@_failures']).toBe('1');
    expect(suite['@_errors']).toBe('1');
    const byName = new Map(suite.testcase.map((t) => [t['@_name'], t]));
    expect((byName.get('fail-1')?.failure as Record<string, string>)['@_message']).toBe('regression (pass → fail, confirmed): numeric scorer: expected 42 at answer, got 41 · critic: wrong_answer');
    expect(byName.get('infra-1')?.error).toBeDefined();
    expect(byName.get('infra-1')?.failure).toBeUndefined();
    expect(byName.has('x<&"y')).toBe(true);
  });
});

describe('the agent error alarm', () => {
  const broken = (i: number) => record(`c${i}`, 0, false, { agentError: `stdout line ${i + 1} is not a trace event: "type" is "thought"` });
  it('sounds when more than a fifth of the case-trials share one kind of agent error (numbers aside)', () => {
    const records = [broken(0), broken(1), broken(2), ...Array.from({ length: 7 }, (_, i) => record(`ok${i}`, 0, true))];
    expect(agentErrorAlarm(records, 'run')).toMatch(/^run: 3 of 10 case-trials \(30%\) ended with the same agent error: "stdout line 1 is not a trace event/);
  });
  it('quotes the first case-trial in case order, however the trials finished', () => {
    const tally = agentErrorTally();
    const late = [broken(2), broken(0), broken(1)];
    late.forEach((r) => tally.add(r, Number(r.caseId.slice(1))));
    for (let i = 0; i < 7; i += 1) tally.add(record(`ok${i}`, 0, true), 3 + i);
    expect(tally.alarm('run')).toMatch(/the same agent error: "stdout line 1 is not a trace event/);
  });
  it('stays quiet at a fifth or less', () => {
    const records = [broken(0), broken(1), ...Array.from({ length: 8 }, (_, i) => record(`ok${i}`, 0, true))];
    expect(agentErrorAlarm(records, 'run')).toBeNull();
  });
});
