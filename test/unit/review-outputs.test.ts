import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { CaseRecord } from '../../src/domain/record.ts';
import { failingCases, failingCasesFrom, recordReason } from '../../src/stages/report/case-reasons.ts';
import { intentFromCommitMessage } from '../../src/domain/release-candidate.ts';
import type { GateDecision } from '../../src/domain/decision.ts';
import { summarizeCases } from '../../src/domain/case-summary.ts';
import { decisionHeadline } from '../../src/stages/report/headline.ts';
import { renderJunit, type JunitGate } from '../../src/stages/report/junit.ts';
import { decideOnRecordedRuns } from '../../src/stages/gate/compare.ts';
import { agentErrorAlarm, agentErrorTally } from '../../src/stages/run/agent-errors.ts';
import { AUTO_POLICY, caseRecord } from '../helpers/records.ts';

/** A record whose failure has a reason in every part: the numeric scorer's values, the critic's label, the infrastructure's error. */
const record = (caseId: string, trial: number, pass: boolean | null, extra: Partial<CaseRecord> = {}): CaseRecord =>
  caseRecord(caseId, pass, {
    trial,
    traceRef: `${caseId}.t${trial}.jsonl`,
    scorer: pass === null ? null : { pass, checks: [{ scorer: 'numeric', pass, ...(pass ? {} : { code: 'out_of_tolerance', where: 'answer', expected: 42, actual: 41 }) }] },
    critic: pass === false ? { pass: false, label: 'wrong_answer', description: 'The answer is off by one.' } : null,
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

  it('are the same from the per-case counts and only the records that are not clean passes, and so is the alarm', () => {
    const records = [
      record('a', 0, true, { agentError: 'stdout line 2 is not JSON' }),
      record('a', 1, false),
      record('b', 0, true),
      record('c', 0, null),
      record('c', 1, true, { agentError: 'stdout line 3 is not JSON' }),
      record('d', 0, false, { agentError: 'stdout line 1 is not JSON' }),
      record('d', 1, false),
      ...Array.from({ length: 4 }, (_, i) => record(`e${i}`, 0, true)),
    ];
    const notable = records.filter((r) => r.pass !== true || r.agentError);
    expect(failingCasesFrom(notable, summarizeCases(records))).toEqual(failingCases(records));
    const whole = agentErrorTally();
    records.forEach((r, i) => whole.add(r, i));
    const part = agentErrorTally(records.length);
    notable.forEach((r, i) => part.add(r, i));
    expect(part.alarm('run')).toBe(whole.alarm('run'));
    expect(part.alarm('run')).toMatch(/^run: 3 of 11 case-trials \(27%\) ended with the same agent error: "stdout line 2 is not JSON"/);
  });
});

type Suite = Record<string, unknown> & { testcase: Array<Record<string, unknown>>; properties?: { property: Array<Record<string, string>> } };
const parseSuite = (xml: string): Suite => {
  expect(XMLValidator.validate(xml)).toBe(true);
  return (new XMLParser({ ignoreAttributes: false }).parse(xml) as { testsuites: { testsuite: Suite } }).testsuites.testsuite;
};

/** A gate decision on the runs below: `reg` regressed (confirmed), `noisy` moved within noise. */
function gateOn(verdict: 'accept' | 'reject'): JunitGate {
  const base = [record('reg', 0, true), record('old1', 0, false), record('old2', 0, false), record('noisy', 0, true), record('ok', 0, true), record('infra', 0, true)];
  const flips = decideOnRecordedRuns({ baseline: summarizeCases(base), candidate: summarizeCases(base), policy: AUTO_POLICY, noise: { variedCases: 0 }, intent: null }).decision;
  const decision: GateDecision = { ...flips, verdict, p2f: ['reg'], flaky: ['noisy'] };
  const headline = decisionHeadline({ outcome: verdict === 'accept' ? 'accepted' : 'rejected', release: null, iteration: 3, candidate: { ref: 'feature' }, gate: decision }, null);
  const baselineCases = new Map([
    ['reg', { passes: 3, graded: 3 }],
    ['old1', { passes: 0, graded: 3 }],
    ['old2', { passes: 1, graded: 3 }],
    ['noisy', { passes: 2, graded: 3 }],
    ['ok', { passes: 3, graded: 3 }],
    ['infra', { passes: 3, graded: 3 }],
  ]);
  return { candidate: 'feature', decision, headline, baselineCases, simulated: false };
}

describe('JUnit', () => {
  const candidate = [
    record('reg', 0, false),
    record('reg', 1, false),
    record('old1', 0, false),
    record('old2', 0, false),
    record('old2', 1, true),
    record('noisy', 0, false),
    record('noisy', 1, true),
    record('ok', 0, true),
    record('infra', 0, null),
  ];

  it('without a gate: a fail is a failure, an infrastructure error an error, never a failure', () => {
    const suite = parseSuite(renderJunit({ suite: 'agentdevel.bp', records: [record('pass-1', 0, true), record('fail-1', 0, false), record('infra-1', 0, null), record('x<&"y', 0, true)] }));
    expect([suite['@_tests'], suite['@_failures'], suite['@_errors']]).toEqual(['4', '1', '1']);
    const byName = new Map(suite.testcase.map((t) => [t['@_name'], t]));
    expect((byName.get('fail-1')?.failure as Record<string, string>)['@_message']).toBe('numeric scorer: expected 42 at answer, got 41 · critic: wrong_answer');
    expect(byName.get('infra-1')?.error).toBeDefined();
    expect(byName.get('infra-1')?.failure).toBeUndefined();
    expect(byName.has('x<&"y')).toBe(true);
  });

  it('after a rejecting gate: 1 confirmed regression is the one failure; already failing and noisy cases are skipped; infrastructure is an error', () => {
    const suite = parseSuite(renderJunit({ suite: 'agentdevel.bp', records: candidate, gate: gateOn('reject') }));
    expect([suite['@_failures'], suite['@_errors'], suite['@_skipped']]).toEqual(['1', '1', '3']);
    const byName = new Map(suite.testcase.map((t) => [t['@_name'], t]));
    expect((byName.get('reg')?.failure as Record<string, string>)['@_type']).toBe('regression');
    expect((byName.get('old1')?.skipped as Record<string, string>)['@_message']).toMatch(/^already failing before this change \(baseline 0\/3\)/);
    expect((byName.get('old2')?.skipped as Record<string, string>)['@_type']).toBe('already_failing');
    expect((byName.get('noisy')?.skipped as Record<string, string>)['@_message']).toMatch(/^moved within noise/);
    expect(byName.get('infra')?.error).toBeDefined();
    // The regression explains the rejection: the gate's own testcase passes; its verdict is in the properties.
    expect(byName.get('gate')?.failure).toBeUndefined();
    const props = new Map(suite.properties?.property.map((p) => [p['@_name'], p['@_value']]));
    expect(props.get('agentdevel.verdict')).toBe('reject');
    expect(props.get('agentdevel.reason.1')).toMatch(/^flips layer: regression reg/);
  });

  it('a case that passed every trial with a verdict passes, its infrastructure errors named; only a case with no verdict at all is an error', () => {
    const records = [record('mixed', 0, true), record('mixed', 1, null), record('mixed', 2, true), record('none', 0, null), record('none', 1, null)];
    for (const gate of [undefined, gateOn('reject')]) {
      const suite = parseSuite(renderJunit({ suite: 'agentdevel.bp', records, ...(gate ? { gate } : {}) }));
      const byName = new Map(suite.testcase.map((t) => [t['@_name'], t]));
      const mixed = byName.get('mixed') as Record<string, unknown>;
      expect([mixed.error, mixed.failure, mixed.skipped]).toEqual([undefined, undefined, undefined]);
      expect(mixed['system-out']).toMatch(/^1 of 3 trials without a verdict \(infrastructure\), every other trial passed: infra_error: /);
      expect(byName.get('none')?.error).toBeDefined();
      expect(suite['@_errors']).toBe('1');
    }
  });

  it('after an accepting gate: no failure and no error, so a passing gate is never a red check', () => {
    const suite = parseSuite(renderJunit({ suite: 'agentdevel.bp', records: candidate, gate: gateOn('accept') }));
    expect([suite['@_failures'], suite['@_errors']]).toEqual(['0', '0']);
    expect(suite.testcase.some((t) => t.failure !== undefined || t.error !== undefined)).toBe(false);
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

describe('the intent of a commit message', () => {
  it('is its Targets line (symptom labels), with the rest of the message as the rationale', () => {
    expect(intentFromCommitMessage('Ask before cancelling\n\nThe agent cancelled without a yes.\nTargets: missing_confirmation, wrong_tool\n')).toEqual({
      targets: ['missing_confirmation', 'wrong_tool'],
      rationale: 'Ask before cancelling. The agent cancelled without a yes.',
    });
  });

  it('is the subject and body as the rationale, with no targets, when the message has no Targets line', () => {
    expect(intentFromCommitMessage('Refactor the prompt\n\nNo behaviour change:\nthe same words, reordered.\n\nSigned-off-by: A <a@example.com>\n')).toEqual({
      targets: [],
      rationale: 'Refactor the prompt. No behaviour change: the same words, reordered.',
    });
    expect(intentFromCommitMessage('Shorter replies\n')).toEqual({ targets: [], rationale: 'Shorter replies' });
    expect(intentFromCommitMessage('\n')).toBeNull();
  });
});
