// The gate's decision from evidence built by hand: no disk, no process, no model.
import { describe, expect, it } from 'vitest';
import type { Case } from '../../src/domain/case.ts';
import { summarizeCases } from '../../src/domain/case-summary.ts';
import type { GateDecision } from '../../src/domain/decision.ts';
import type { CaseRecord } from '../../src/domain/record.ts';
import { decideOnRecordedRuns, type ComparePolicy } from '../../src/stages/gate/compare.ts';
import { decideCandidate, reviewerQuestion, type CandidateEvidence, type DecisionPolicy, type GateEvidence, type RunCosts } from '../../src/stages/gate/decide.ts';
import { PAPER_COST_WEIGHTS } from '../../src/stages/score/trace-cost.ts';

const statistical: ComparePolicy = { policy: 'auto', maxP2F: 0, maxP2FRate: 0.02, minF2P: 1, minHitRate: 0.5, maxUngradedShare: 0.1, alpha: 0.05, maxSignificantRegressions: 0, maxConfirmTrials: 32, detectableDrop: 0.6, futility: 0.33, baselineRecords: 3, secondLook: 'auto' };

function record(caseId: string, pass: boolean, extra: Partial<CaseRecord> = {}): CaseRecord {
  return { caseId, trial: 0, status: 'ok', output: null, traceRef: '', scorer: null, critic: { pass, label: pass ? 'ok' : 'x', description: '' }, pass, error: null, ...extra };
}

const IDS = ['a', 'b', 'c', 'd', 'e', 'f'];
/** Six cases, a failing; both runs alike. */
const RECORDS = IDS.map((id) => record(id, id !== 'a'));
const TRAIN: Case[] = IDS.map((id) => ({ id, ...(id === 'b' ? { tags: ['critical'] } : {}) }));

/** The statistical gate on two identical runs: it accepts; with an intent to fix, it rejects for want of a fix. */
function flips(intent: boolean): GateDecision {
  const summaries = summarizeCases(RECORDS);
  return decideOnRecordedRuns({ baseline: summaries, candidate: summaries, policy: statistical, noise: { variedCases: 0 }, intent: intent ? { targets: ['x'], rationale: 'r' } : null }).decision;
}

const costs = (perCase: number): RunCosts => ({ mean: perCase, perCase: new Map(IDS.map((id) => [id, perCase])) });

function ran(overrides: Partial<CandidateEvidence> = {}): CandidateEvidence {
  return { decision: flips(false), records: { baseline: RECORDS, candidate: RECORDS, candidateTrials: RECORDS }, costs: null, task: { requirements: [], trainCases: TRAIN }, ...overrides };
}

const POLICY: DecisionPolicy = {
  blueprint: 'support-agent',
  checks: { mustPass: [], maxTraceCost: null },
  requirements: null,
  efficiency: { allowed: false, alpha: 0.05 },
  composite: null,
  approval: false,
  ablation: null,
};

const evidence = (overrides: Partial<GateEvidence> = {}): GateEvidence => ({ outside: [], blueprintChecks: [], candidate: ran(), review: null, ...overrides });

interface Row {
  readonly name: string;
  readonly evidence: GateEvidence;
  readonly policy: DecisionPolicy;
  readonly verdict: GateDecision['verdict'];
  readonly layers: ReadonlyArray<[string, string]>;
  readonly reason?: RegExp;
}

const table: Row[] = [
  { name: 'accepts a candidate every layer passes', evidence: evidence(), policy: POLICY, verdict: 'accept', layers: [['checks', 'pass'], ['flips', 'accept']] },
  {
    name: 'vetoes a candidate that failed a must-pass case (named by tag) in one of its trials, whatever the flips say',
    evidence: evidence({ candidate: ran({ records: { baseline: RECORDS, candidate: RECORDS, candidateTrials: [...RECORDS, record('b', false, { trial: 4 })] } }) }),
    policy: { ...POLICY, checks: { mustPass: ['tag:critical'], maxTraceCost: null } },
    verdict: 'reject',
    layers: [['checks', 'veto'], ['flips', 'accept']],
    reason: /^checks layer: 1 must-pass case failed in the candidate: b/,
  },
  {
    name: 'rejects a candidate a blueprint check failed, which never ran',
    evidence: evidence({ blueprintChecks: [{ name: 'typecheck', ok: false, detail: 'exit 2' }], candidate: null }),
    policy: POLICY,
    verdict: 'reject',
    layers: [['checks', 'veto'], ['flips', 'not_run']],
    reason: /^checks layer: blueprint check "typecheck" failed: exit 2/,
  },
  {
    name: 'rejects a candidate that edits outside its blueprint before anything runs',
    evidence: evidence({ outside: ['rubrics/orders/rubric.md'], candidate: null }),
    policy: { ...POLICY, approval: true },
    verdict: 'reject',
    layers: [['flips', 'reject']],
    reason: /^edits outside blueprints\/support-agent\/ \(rubrics\/orders\/rubric\.md\)/,
  },
  {
    name: 'promotes on efficiency a candidate that fixes and breaks nothing but costs less on every case',
    evidence: evidence({ candidate: ran({ decision: flips(true), costs: { weights: PAPER_COST_WEIGHTS, baseline: costs(0.5), candidate: costs(0.2) } }) }),
    policy: { ...POLICY, efficiency: { allowed: true, alpha: 0.05 } },
    verdict: 'accept',
    layers: [['checks', 'pass'], ['flips', 'accept']],
    reason: /^promoted on efficiency: efficiency release\? 6 of 6 cases cost less/,
  },
  {
    name: 'keeps that candidate rejected when efficiency releases are off',
    evidence: evidence({ candidate: ran({ decision: flips(true), costs: { weights: PAPER_COST_WEIGHTS, baseline: costs(0.5), candidate: costs(0.2) } }) }),
    policy: POLICY,
    verdict: 'reject',
    layers: [['checks', 'pass'], ['flips', 'reject']],
  },
  {
    name: 'vetoes on the requirements reviewer\'s violation',
    evidence: evidence({ review: { violations: [{ requirement: 'R2', caseId: 'c', reason: 'cancelled without a yes' }] } }),
    policy: { ...POLICY, requirements: { maxViolationRate: null } },
    verdict: 'reject',
    layers: [['checks', 'pass'], ['flips', 'accept'], ['requirements', 'veto']],
    reason: /^requirements layer: 1 requirement violation: R2 in c \(cancelled without a yes\)/,
  },
  {
    name: 'holds an accepted candidate for a person\'s approval',
    evidence: evidence({ review: { violations: [] } }),
    policy: { ...POLICY, requirements: { maxViolationRate: null }, approval: true },
    verdict: 'accept',
    layers: [['checks', 'pass'], ['flips', 'accept'], ['requirements', 'pass'], ['approval', 'pending']],
  },
  {
    name: 'asks no one to approve a rejected candidate',
    evidence: evidence({ candidate: ran({ decision: flips(true) }) }),
    policy: { ...POLICY, approval: true },
    verdict: 'reject',
    layers: [['checks', 'pass'], ['flips', 'reject'], ['approval', 'not_run']],
  },
  {
    name: 'promotes whatever the gate said under the no-gate ablation, keeping what it said',
    evidence: evidence({ candidate: ran({ decision: flips(true) }) }),
    policy: { ...POLICY, ablation: 'no-gate' },
    verdict: 'accept',
    layers: [['checks', 'pass'], ['flips', 'reject']],
    reason: /^ablation no-gate: promoted whatever the gate said; the gate said reject: /,
  },
  {
    name: 'rejects under the no-gate ablation a candidate that never ran',
    evidence: evidence({ blueprintChecks: [{ name: 'typecheck', ok: false, detail: 'exit 2' }], candidate: null }),
    policy: { ...POLICY, ablation: 'no-gate' },
    verdict: 'reject',
    layers: [['checks', 'veto'], ['flips', 'not_run']],
  },
];

describe('decide: the gate as a pure function of its evidence', () => {
  it.each(table)('$name', (row) => {
    const decision = decideCandidate(row.evidence, row.policy);
    expect(decision.verdict).toBe(row.verdict);
    expect(decision.layers.map((l) => [l.layer, l.verdict])).toEqual(row.layers);
    if (row.reason) expect(decision.reasons[0]).toMatch(row.reason);
  });

  it('names the other ablations in the reasons and decides as the gate does', () => {
    const decision = decideCandidate(evidence(), { ...POLICY, ablation: 'no-diagnosis' });
    expect(decision.verdict).toBe('accept');
    expect(decision.reasons.at(-1)).toMatch(/^ablation no-diagnosis: /);
  });

  it('asks the requirements reviewer only when every other layer accepts, about the cases that moved', () => {
    const withReview: DecisionPolicy = { ...POLICY, requirements: { maxViolationRate: null }, checks: { mustPass: ['b'], maxTraceCost: null } };
    const moved = summarizeCases([...RECORDS.filter((r) => r.caseId !== 'a'), record('a', true)]);
    const fixed = decideOnRecordedRuns({ baseline: summarizeCases(RECORDS), candidate: moved, policy: statistical, noise: { variedCases: 0 }, intent: null }).decision;
    expect(reviewerQuestion(evidence({ candidate: ran({ decision: fixed }) }), withReview)).toEqual({ moved: ['a'] });
    // Without its verdicts, a decision that needs them is refused rather than taken.
    expect(() => decideCandidate(evidence(), withReview)).toThrow(/the requirements reviewer was not asked/);

    const vetoed = evidence({ candidate: ran({ records: { baseline: RECORDS, candidate: RECORDS, candidateTrials: [record('b', false)] } }) });
    expect(reviewerQuestion(vetoed, withReview)).toBeNull();
    const decision = decideCandidate(vetoed, withReview);
    expect(decision.layers.map((l) => [l.layer, l.verdict])).toEqual([['checks', 'veto'], ['flips', 'accept'], ['requirements', 'not_run']]);
    expect(decision.layers.at(-1)?.checks[0]?.message).toBe('not asked: an earlier layer rejected the candidate');
    // Nor about a rejected, out-of-scope or unrun candidate, nor when the gate has no such layer.
    expect(reviewerQuestion(evidence({ candidate: ran({ decision: flips(true) }) }), withReview)).toBeNull();
    expect(reviewerQuestion(evidence({ outside: ['x'], candidate: null }), withReview)).toBeNull();
    expect(reviewerQuestion(evidence(), POLICY)).toBeNull();
  });

  it('holds the candidate\'s trace cost and its requirement-violation rate to their limits', () => {
    const expensive = evidence({ candidate: ran({ costs: { weights: PAPER_COST_WEIGHTS, baseline: costs(0.1), candidate: costs(0.9) } }) });
    const capped = decideCandidate(expensive, { ...POLICY, checks: { mustPass: [], maxTraceCost: 0.5 } });
    expect(capped.verdict).toBe('reject');
    expect(capped.reasons[0]).toMatch(/^checks layer: mean trace cost 0\.900 per case-trial \(at most 0\.5\)/);
    expect(capped.cost).toEqual({ weights: PAPER_COST_WEIGHTS, baseline: 0.1, candidate: 0.9 });

    const violating = RECORDS.map((r) => (r.caseId === 'b' ? { ...r, scorer: { pass: true, checks: [] }, critic: { pass: false, label: 'x', description: '', requirements: [{ id: 'R1', pass: false, reason: 'no' }] } } : r));
    const rated = decideCandidate(
      evidence({ candidate: ran({ records: { baseline: RECORDS, candidate: violating, candidateTrials: violating } }), review: { violations: [] } }),
      { ...POLICY, requirements: { maxViolationRate: 0.1 } },
    );
    expect(rated.layers.at(-1)).toMatchObject({ layer: 'requirements', verdict: 'veto' });
    expect(rated.reasons[0]).toMatch(/requirement-violation rate 16\.7% \(at most 10\.0%\)/);
  });
});
