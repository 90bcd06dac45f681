// What a decision writes, planned from facts built by hand: no disk, no git, no process. The
// report template is a stand-in (the real one is a file, read by the adapter).
import { describe, expect, it } from 'vitest';
import type { CaseSummary } from '../../src/domain/case-summary.ts';
import type { GateDecision } from '../../src/domain/decision.ts';
import type { ReportTemplates } from '../../src/domain/ports/report-templates.ts';
import { decideFlipsAtFaceValue } from '../../src/stages/gate/face-value-gate.ts';
import { composeLayers, flipsOnly } from '../../src/stages/gate/layers.ts';
import { screen } from '../../src/stages/gate/screening.ts';
import { noCandidateEntry, planRelease, verdictRefs, type ReleaseFacts, type ReleasePlan } from '../../src/stages/release/plan.ts';

const templates: ReportTemplates = (name, view) => `${name}: ${String(view.title)}\n`;
const rendering = { textDiff: () => null, templates };

const TIP = 'a'.repeat(40);
const RC = 'b'.repeat(40);

/** The paper gate on two cases: c1 fixed; c2 broken too when rejected. */
function gate(verdict: 'accept' | 'reject'): GateDecision {
  const baseline = new Map<string, CaseSummary>([
    ['c1', { caseId: 'c1', trials: 1, passes: 0, graded: 1, outcome: 'fail', symptom: 'x', description: 'd' }],
    ['c2', { caseId: 'c2', trials: 1, passes: 1, graded: 1, outcome: 'pass', symptom: null, description: null }],
  ]);
  return flipsOnly(
    decideFlipsAtFaceValue({
      policy: { maxP2F: 0, maxP2FRate: 0, minF2P: 1, minHitRate: 0, maxUngradedShare: 1 },
      flips: { p2f: verdict === 'reject' ? ['c2'] : [], f2p: ['c1'], p2p: [], f2f: [], ungraded: [], unmatched: [] },
      screening: screen(baseline, new Map()),
      baseline,
      candidate: new Map(),
      intent: { targets: ['x'], rationale: 'why' },
      warnings: [],
    }),
  );
}

function facts(overrides: Partial<ReleaseFacts> = {}): ReleaseFacts {
  return {
    iteration: 3,
    blueprint: 'support-agent',
    candidate: { ref: 'agentdevel/rc/support-agent/iter-003', commit: RC, tree: 'c'.repeat(40), parent: TIP },
    baseline: { commit: TIP, label: 'support-agent/v0', runId: 'run-base', recordRunIds: ['run-base'] },
    candidateRunId: 'run-rc',
    confirmationRunIds: ['run-confirm'],
    fingerprint: 'f1',
    intent: { targets: ['x'], rationale: 'why' },
    baselineCases: new Map(),
    candidateCases: new Map(),
    edits: [{ status: 'M', path: 'blueprints/support-agent/system.hbs' }],
    cases: null,
    diagnosis: null,
    simulated: true,
    mockRoles: ['agent'],
    models: { agent: 'mock' },
    cost: null,
    target: {
      candidateDir: '/nowhere/rc-3',
      lineTip: TIP,
      refs: { line: 'refs/heads/main', lineBranch: 'main', audit: 'refs/agentdevel/rc/support-agent/iter-003', pending: 'refs/agentdevel/pending/support-agent/iter-003' },
      history: { initialPassRate: 0.5, releases: [], changelog: [], candidateDate: '2026-11-22' },
      reportDir: null,
    },
    ...overrides,
  };
}

const dryTarget = (reportDir: string | null): ReleaseFacts['target'] => ({ ...facts().target, history: null, reportDir });

const paths = (plan: ReleasePlan): string[] => (plan.write.kind === 'nothing' ? [] : plan.write.kind === 'record' ? plan.write.commit.files : plan.write.files).map((f) => f.path);

const RELEASE_FILES = ['decision.json', 'flips.json', 'intent.json', 'report.md', 'report.html'];

describe('planRelease: what a decision writes', () => {
  it.each([
    {
      name: 'promoted: the release folder, the line index and changelog, committed; the tag and the line through the journal',
      gate: gate('accept'),
      record: true,
      approval: false,
      outcome: 'promoted',
      release: 'support-agent/v1',
      files: [...RELEASE_FILES.map((f) => `releases/support-agent/v1/${f}`), 'releases/support-agent/index.html', 'releases/support-agent/CHANGELOG.md'],
      refs: { auditRef: 'refs/agentdevel/rc/support-agent/iter-003', pointAtCommit: [], promotion: { tag: 'support-agent/v1', line: 'refs/heads/main', lineBranch: 'main', from: TIP }, remove: [] },
      message: /^agentdevel: release support-agent\/v1 \(iteration 3\)\n/,
    },
    {
      name: 'pending: held under its pending ref and its audit ref, the line and the tags untouched',
      gate: composeLayers(gate('accept'), { approval: true }),
      record: true,
      approval: true,
      outcome: 'pending',
      release: 'support-agent/v1',
      files: RELEASE_FILES.map((f) => `releases/support-agent/pending/iter-003/${f}`),
      refs: { auditRef: 'refs/agentdevel/rc/support-agent/iter-003', pointAtCommit: ['refs/agentdevel/pending/support-agent/iter-003', 'refs/agentdevel/rc/support-agent/iter-003'], promotion: null, remove: [] },
      message: /^agentdevel: hold release candidate \(iteration 3\) for approval as support-agent\/v1\n/,
    },
    {
      name: 'rejected: recorded off the line, under its audit ref',
      gate: gate('reject'),
      record: true,
      approval: true,
      outcome: 'rejected',
      release: null,
      files: RELEASE_FILES.map((f) => `releases/support-agent/rejected/iter-003/${f}`),
      refs: { auditRef: 'refs/agentdevel/rc/support-agent/iter-003', pointAtCommit: ['refs/agentdevel/rc/support-agent/iter-003'], promotion: null, remove: [] },
      message: /^agentdevel: reject release candidate \(iteration 3\)\n/,
    },
  ])('$name', (row) => {
    const plan = planRelease({ gate: row.gate, record: row.record, holdForApproval: row.approval, nextRelease: 'support-agent/v1' }, facts(), rendering);
    expect(plan.outcome).toBe(row.outcome);
    expect(plan.evidence.release).toBe(row.release);
    expect(paths(plan)).toEqual(row.files);
    if (plan.write.kind !== 'record') throw new Error(`expected a record, got ${plan.write.kind}`);
    expect(plan.write.commit.dir).toBe('/nowhere/rc-3');
    expect(plan.write.commit.message).toMatch(row.message);
    const { promotion, ...refs } = plan.write.refs;
    expect({ ...refs, promotion: promotion && { tag: promotion.tag, line: promotion.line, lineBranch: promotion.lineBranch, from: promotion.from } }).toEqual(row.refs);
    if (promotion) expect(promotion.tagMessage).toMatch(/^support-agent\/v1: 1 fixed \(F→P\), 0 regressed \(P→F\)/);
    const decision = JSON.parse(plan.write.commit.files[0]?.content ?? '{}') as { outcome: string; release: string | null; candidateRun: unknown };
    expect(decision).toMatchObject({ outcome: row.outcome, release: row.release, candidateRun: { runId: 'run-rc', confirmationRunIds: ['run-confirm'] } });
    expect(plan.row).toEqual({
      blueprint: 'support-agent',
      iteration: 3,
      candidateRef: 'agentdevel/rc/support-agent/iter-003',
      candidateCommit: RC,
      baselineRun: 'run-base',
      candidateRun: 'run-rc',
      outcome: row.outcome,
      reasons: row.gate.reasons,
      intent: { targets: ['x'], rationale: 'why' },
      tag: null,
      auditRef: null,
      recordedCommit: null,
      f2p: ['c1'],
      p2f: row.gate.p2f,
    });
  });

  it('a dry gate writes its reports flat into the report folder, and is no iteration of the line', () => {
    const plan = planRelease({ gate: gate('accept'), record: false, holdForApproval: false, nextRelease: 'support-agent/v1' }, facts({ target: dryTarget('/reports/rc-3') }), rendering);
    expect(plan.outcome).toBe('accepted');
    expect(plan.evidence.release).toBeNull();
    expect(plan.write).toMatchObject({ kind: 'reports', dir: '/reports/rc-3' });
    expect(paths(plan)).toEqual(RELEASE_FILES);
    expect(plan.row).toMatchObject({ iteration: null, outcome: 'accepted', tag: null, recordedCommit: null });
    // Without a report folder it writes nothing but its row.
    const quiet = planRelease({ gate: gate('reject'), record: false, holdForApproval: true, nextRelease: 'support-agent/v1' }, facts({ target: dryTarget(null) }), rendering);
    expect(quiet.outcome).toBe('rejected');
    expect(quiet.write).toEqual({ kind: 'nothing' });
  });

  it('says "(not run)" in the reports and null in the row for runs that never happened', () => {
    const plan = planRelease(
      { gate: gate('reject'), record: true, holdForApproval: false, nextRelease: 'support-agent/v1' },
      facts({ baseline: { commit: TIP, label: 'support-agent/v0', runId: null, recordRunIds: [] }, candidateRunId: null, confirmationRunIds: [] }),
      rendering,
    );
    expect(plan.evidence.baseline.runId).toBe('(not run)');
    expect(plan.evidence.candidateRunId).toBe('(not run)');
    expect(plan.row).toMatchObject({ baselineRun: null, candidateRun: null, outcome: 'rejected' });
  });

  it('a person\'s verdict: an approval promotes through the journal, a refusal moves the audit ref; both remove the pending ref', () => {
    const planned = planRelease({ gate: composeLayers(gate('accept'), { approval: true }), record: true, holdForApproval: true, nextRelease: 'support-agent/v1' }, facts(), rendering);
    const document = JSON.parse(planned.write.kind === 'record' ? (planned.write.commit.files[0]?.content ?? '{}') : '{}');
    const pending = { ref: 'refs/agentdevel/pending/support-agent/iter-003', commit: 'd'.repeat(40) };
    const input = { document, pending, lineTip: TIP, refs: { line: 'refs/heads/main', lineBranch: 'main', audit: 'refs/agentdevel/rc/support-agent/iter-003' } };
    const approved = verdictRefs('approved', input);
    expect(approved).toMatchObject({ pointAtCommit: [], promotion: { tag: 'support-agent/v1', from: TIP, line: 'refs/heads/main' }, remove: [{ ref: pending.ref, oldValue: pending.commit }] });
    expect(verdictRefs('declined', input)).toEqual({ auditRef: input.refs.audit, pointAtCommit: [input.refs.audit], promotion: null, remove: [{ ref: pending.ref, oldValue: pending.commit }] });
  });

  it('the row of an iteration without a release candidate', () => {
    expect(noCandidateEntry({ blueprint: 'support-agent', iteration: 4, baselineRun: 'run-base', reasons: ['no valid RC'] })).toEqual({
      blueprint: 'support-agent',
      iteration: 4,
      candidateRef: '(none)',
      candidateCommit: null,
      baselineRun: 'run-base',
      candidateRun: null,
      outcome: 'no_candidate',
      reasons: ['no valid RC'],
      intent: null,
      tag: null,
      auditRef: null,
      recordedCommit: null,
      f2p: [],
      p2f: [],
    });
  });
});
