import { describe, expect, it } from 'vitest';
import { DECISION_SCHEMA, parseDecisionDocument } from '../../src/domain/decision.ts';
import { AgentdevelError } from '../../src/domain/errors.ts';
import { decisionDocument, type ReleaseEvidence } from '../../src/stages/release/artifacts.ts';
import { decideOnRecordedRuns } from '../../src/stages/gate/compare.ts';
import { summarizeCases } from '../../src/domain/case-summary.ts';
import { AUTO_POLICY, caseRecord as record, releaseEvidence } from '../helpers/records.ts';

function evidence(): ReleaseEvidence {
  const { decision, baselineCases, candidateCases } = decideOnRecordedRuns({
    baseline: summarizeCases([record('a', false), record('b', true)]),
    candidate: summarizeCases([record('a', true), record('b', true)]),
    policy: AUTO_POLICY,
    noise: { variedCases: 0 },
    intent: null,
  });
  return releaseEvidence({
    iteration: 3,
    candidate: { ref: 'rc', commit: 'c'.repeat(40), tree: 'e'.repeat(40), parent: 'b'.repeat(40) },
    baseline: { commit: 'b'.repeat(40), label: 'bp/v1', runId: 'run-1', recordRunIds: ['run-1', 'run-4', 'run-5'] },
    candidateRunId: 'run-2',
    confirmationRunIds: ['run-3'],
    decision,
    baselineCases,
    candidateCases,
  });
}

describe('the decision document in git', () => {
  it('is written by its schema and reads back whole', () => {
    const text = JSON.stringify(decisionDocument(evidence()));
    const read = parseDecisionDocument(text, 'refs/x:decision.json');
    expect(read.version).toBe(3);
    expect(read.document?.schema).toBe(DECISION_SCHEMA);
    expect(read.document?.gate.procedure.kind).toBe('single_stage');
    expect(read.document?.baseline.recordRunIds).toEqual(['run-1', 'run-4', 'run-5']);
    expect(read.document?.gate.power?.text.length).toBeGreaterThan(0);
    expect(read.document?.candidateRun.confirmationRunIds).toEqual(['run-3']);
    expect(read).toMatchObject({ iteration: 3, outcome: 'rejected', f2p: [], p2f: [], intent: { targets: ['x'] } });
  });

  it('reads version 2, written before the minimum detectable effect and the baseline records were recorded', () => {
    const v3 = JSON.parse(JSON.stringify(decisionDocument(evidence())));
    const v2 = { ...v3, schema: 'agentdevel/decision@2', baseline: { commit: v3.baseline.commit, label: v3.baseline.label, runId: v3.baseline.runId } };
    delete v2.gate.power;
    delete v2.gate.procedure.fixLevel;
    delete v2.gate.procedure.baselineRecords;
    delete v2.gate.aggregate.source;
    for (const test of v2.gate.tests) {
      delete test.weight;
      delete test.bar;
      delete test.trialsPerSide;
    }
    const read = parseDecisionDocument(JSON.stringify(v2), 'd.json');
    expect(read.version).toBe(2);
    expect(read.document?.gate.power).toBeNull();
    expect(read.document?.baseline.recordRunIds).toEqual([]);
    expect(read.document?.gate.aggregate.source).toBe('screening');
  });

  it('records the candidate commit, tree and parent the gate saw; a decision@3 written before them reads them as null', () => {
    const written = decisionDocument(evidence());
    expect(written.candidate).toEqual({ ref: 'rc', commit: 'c'.repeat(40), tree: 'e'.repeat(40), parent: 'b'.repeat(40) });
    const older = JSON.parse(JSON.stringify(written));
    older.candidate = { ref: 'rc', commit: 'c'.repeat(40) };
    const read = parseDecisionDocument(JSON.stringify(older), 'd.json');
    expect(read.version).toBe(3);
    expect(read.document?.candidate).toEqual({ ref: 'rc', commit: 'c'.repeat(40), tree: null, parent: null });
  });

  it('reads the version an earlier agentdevel wrote', () => {
    const v1 = {
      schema: 'agentdevel/decision@1',
      iteration: 1,
      blueprint: 'bp',
      outcome: 'promoted',
      release: 'bp/v1',
      candidate: { ref: 'rc', commit: 'c'.repeat(40) },
      f2p: ['a'],
      p2f: [],
      flaky: [],
      policy: 'flips',
      significant: { regressions: [], fixes: [] },
      pValue: 0.5,
      reasons: ['1 fail→pass fix'],
      intent: { targets: ['x'], rationale: 'why' },
      fingerprint: 'f',
      simulated: true,
      costUsd: 0.25,
    };
    expect(parseDecisionDocument(JSON.stringify(v1), 'd.json')).toMatchObject({ version: 1, release: 'bp/v1', f2p: ['a'], fingerprint: 'f', costUsd: 0.25, document: null });
  });

  it('refuses a damaged or newer document with one clear error naming where it lives', () => {
    const refused = (text: string): AgentdevelError => {
      try {
        parseDecisionDocument(text, 'refs/agentdevel/rc/bp/iter-001:releases/bp/v1/decision.json');
      } catch (error) {
        if (error instanceof AgentdevelError) return error;
        throw error;
      }
      throw new Error('expected a refusal');
    };
    expect(refused('{"schema": "agentdevel/decision@9"}').message).toMatch(/newer than this agentdevel reads/);
    const damaged = refused(JSON.stringify({ ...JSON.parse(JSON.stringify(decisionDocument(evidence()))), gate: { verdict: 'maybe' } }));
    expect(damaged.code).toBe('HISTORY_INVALID');
    expect(damaged.message).toMatch(/^refs\/agentdevel\/rc\/bp\/iter-001:releases\/bp\/v1\/decision\.json: gate\./);
  });
});
