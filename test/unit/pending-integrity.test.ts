import { describe, expect, it } from 'vitest';
import { pendingIntegrityProblems, pendingTrust, type PendingDecisionFacts, type PendingFacts } from '../../src/stages/release/pending-integrity.ts';

const sha = (c: string) => c.repeat(40);
const HEAD = sha('a');
const GATED = sha('c');
const PENDING = sha('d');

/** A pending release exactly as the gate left it. */
const intact: PendingFacts = {
  blueprint: 'bp',
  iteration: 2,
  pendingRef: 'refs/agentdevel/pending/bp/iter-002',
  pending: { commit: PENDING, parents: [GATED], changed: ['releases/bp/pending/iter-002/decision.json', 'diagnostics/bp/iter-002/report.json'] },
  recorded: { commit: GATED, tree: sha('e'), parent: HEAD },
  candidate: { tree: sha('e'), parents: [HEAD], onLineHead: true, changed: ['blueprints/bp/system.hbs'], linksLeaving: [] },
  lineHead: HEAD,
  auditRef: 'refs/agentdevel/rc/bp/iter-002',
  auditCommit: PENDING,
  decision: {
    iteration: 2,
    blueprint: 'bp',
    outcome: 'pending',
    release: 'bp/v3',
    hasApproval: false,
    policy: 'stochastic',
    verdict: 'accept',
    layers: [
      { layer: 'checks', verdict: 'pass' },
      { layer: 'flips', verdict: 'accept' },
      { layer: 'approval', verdict: 'pending' },
    ],
    failedChecks: [],
    f2p: ['c1', 'c2'],
    p2f: [],
    hasIntent: true,
    efficiencyRelease: false,
    recordedOutside: [],
  },
  flipsFile: { f2p: ['c2', 'c1'], p2f: [] },
  line: { nextRelease: 'bp/v3', maxRegressions: { flips: 0, stochastic: 0 }, minFixes: 1 },
  gateRecord: { candidate: GATED, pendingCommit: PENDING },
  vouchedFor: null,
};
const decided = (change: Partial<PendingDecisionFacts>): Partial<PendingFacts> => ({ decision: { ...intact.decision, ...change } });

describe('approval promotes only what was gated', () => {
  it('finds nothing wrong with the pending release the gate recorded, nor with one recorded before the tree and parent were', () => {
    expect(pendingIntegrityProblems(intact)).toEqual([]);
    expect(pendingIntegrityProblems({ ...intact, recorded: { commit: GATED, tree: null, parent: null }, gateRecord: null })).toEqual([]);
  });

  it.each<[string, Partial<PendingFacts>, RegExp]>([
    ['a parentless commit', { pending: { commit: PENDING, parents: [], changed: null } }, /has no parent: promoting it would drop the line's history/],
    ['a commit on top of the pending release', { pending: { commit: sha('f'), parents: [PENDING], changed: null }, auditCommit: sha('f') }, /sits on dddddddddd, not on the gated candidate cccccccccc alone/],
    ['a merge of the candidate and something else', { pending: { commit: PENDING, parents: [GATED, sha('9')], changed: null } }, /sits on cccccccccc and 9999999999/],
    [
      'task cases and config edited in the report commit',
      { pending: { commit: PENDING, parents: [GATED], changed: ['releases/bp/pending/iter-002/report.md', 'rubrics/t/train.jsonl', 'agentdevel.config.json'] } },
      /on top of the gated candidate it changes rubrics\/t\/train\.jsonl, agentdevel\.config\.json, which no decision writes/,
    ],
    ["another iteration's report folder", { pending: { commit: PENDING, parents: [GATED], changed: ['releases/bp/pending/iter-003/report.md'] } }, /changes releases\/bp\/pending\/iter-003\/report\.md/],
    ['a candidate missing from the repository', { candidate: null }, /the gated candidate cccccccccc is not in this repository/],
    ['a candidate whose tree differs', { candidate: { ...(intact.candidate as NonNullable<PendingFacts['candidate']>), tree: sha('7') } }, /the candidate's tree is 7777777777, the gate saw eeeeeeeeee/],
    ['a candidate whose parent differs', { candidate: { ...(intact.candidate as NonNullable<PendingFacts['candidate']>), parents: [sha('6')] } }, /the candidate's parent is 6666666666, the gate saw aaaaaaaaaa/],
    ['a candidate off the line', { candidate: { ...(intact.candidate as NonNullable<PendingFacts['candidate']>), onLineHead: false } }, /not built on the line's head aaaaaaaaaa/],
    ['a candidate that edits the task', { candidate: { ...(intact.candidate as NonNullable<PendingFacts['candidate']>), changed: ['blueprints/bp/a.ts', 'rubrics/t/rubric.md'] } }, /the candidate changes rubrics\/t\/rubric\.md, outside blueprints\/bp\//],
    [
      "a person's change that edits more than its decision records",
      { candidate: { ...(intact.candidate as NonNullable<PendingFacts['candidate']>), changed: ['blueprints/bp/a.ts', 'rubrics/t/train.jsonl', 'agentdevel.config.json'] }, ...decided({ recordedOutside: ['rubrics/t/train.jsonl'] }) },
      /the candidate changes agentdevel\.config\.json, outside blueprints\/bp\/, which its decision does not record as gated/,
    ],
    [
      "a decision that records a person's task edit the candidate does not make",
      decided({ recordedOutside: ['rubrics/t/train.jsonl'] }),
      /its decision records changes to rubrics\/t\/train\.jsonl, which the candidate does not make/,
    ],
    ['a candidate whose blueprint links out', { candidate: { ...(intact.candidate as NonNullable<PendingFacts['candidate']>), linksLeaving: ['blueprints/bp/x -> ../../rubrics'] } }, /links out of its folder: blueprints\/bp\/x -> \.\.\/\.\.\/rubrics/],
    ['a pending ref moved without its audit ref', { auditCommit: sha('5') }, /refs\/agentdevel\/rc\/bp\/iter-002, written together with the pending ref, points at 5555555555, not at dddddddddd/],
    ['a decision document rewritten to name another candidate', { gateRecord: { candidate: sha('4'), pendingCommit: PENDING } }, /this workspace's store recorded 4444444444 as the candidate of iteration 2, the pending decision names cccccccccc/],
    // Decision documents rewritten on top of the real candidate: the gate's record names another pending commit.
    ['decision documents rewritten on top of the gated candidate', { pending: { ...intact.pending, commit: sha('b') }, auditCommit: sha('b') }, /the gate on this machine held dddddddddd for approval in iteration 2, the pending ref points at bbbbbbbbbb/],
    ['a vouched commit that is not the pending one', { gateRecord: null, vouchedFor: sha('8') }, /--trust-pending names 8888888888, the pending ref points at dddddddddd/],
    ['a decision that names a release out of the line\'s order', decided({ release: 'bp/v7' }), /names the release bp\/v7; the line's next release is bp\/v3/],
    ['a decision of another iteration', decided({ iteration: 5 }), /its decision is iteration 5's, the ref is iteration 2's/],
    ['a decision of another blueprint', decided({ blueprint: 'other' }), /for the blueprint other, not bp/],
    ['a decision that reads as already approved', decided({ outcome: 'promoted', hasApproval: true }), /reads "promoted" with a verdict already, not a pending release/],
    ['a rejection rewritten as pending', decided({ verdict: 'reject' }), /verdict \(reject; checks pass, flips accept, approval pending\) is not an acceptance held for approval/],
    ['a vetoed layer', decided({ layers: [{ layer: 'checks', verdict: 'veto' }, { layer: 'flips', verdict: 'accept' }, { layer: 'approval', verdict: 'pending' }] }), /checks veto, flips accept, approval pending\) is not an acceptance/],
    ['no approval layer', decided({ layers: [{ layer: 'flips', verdict: 'accept' }] }), /is not an acceptance held for approval/],
    ['failed checks in an acceptance', decided({ failedChecks: ['regressions', 'checks: must_pass'] }), /accepts with checks that failed: regressions, checks: must_pass/],
    ['more regressions than the policy tolerates', decided({ p2f: ['c9'] }), /accepts 1 regressions under gate.policy stochastic, which tolerates 0/],
    ['fewer fixes than gate.minF2P', decided({ f2p: [] }), /accepts 0 fixes, gate.minF2P requires 1/],
    ['flips.json at odds with decision.json', { flipsFile: { f2p: ['c1'], p2f: [] } }, /its flips.json and its decision.json name different flips/],
    ['a report without flips.json', { flipsFile: null }, /its report has no flips.json/],
  ])('refuses %s', (_name, change, problem) => {
    const problems = pendingIntegrityProblems({ ...intact, ...change });
    expect(problems.join('\n')).toMatch(problem);
  });

  it("accepts a person's change whose edits beyond the blueprint are exactly those its decision records as gated", () => {
    const candidate = { ...(intact.candidate as NonNullable<PendingFacts['candidate']>), changed: ['blueprints/bp/a.ts', 'rubrics/t/train.jsonl', 'README.md'] };
    expect(pendingIntegrityProblems({ ...intact, candidate, ...decided({ recordedOutside: ['README.md', 'rubrics/t/train.jsonl'] }) })).toEqual([]);
  });

  it('accepts an efficiency release without fixes, and a flips-policy decision within maxP2F', () => {
    expect(pendingIntegrityProblems({ ...intact, ...decided({ f2p: [], efficiencyRelease: true }), flipsFile: { f2p: [], p2f: [] } })).toEqual([]);
    const tolerant = { ...intact, line: { ...intact.line, maxRegressions: { flips: 1, stochastic: 0 } } };
    expect(pendingIntegrityProblems({ ...tolerant, ...decided({ policy: 'flips', p2f: ['c9'] }), flipsFile: { f2p: ['c1', 'c2'], p2f: ['c9'] } })).toEqual([]);
    expect(pendingIntegrityProblems({ ...tolerant, ...decided({ policy: 'stochastic', p2f: ['c9'] }), flipsFile: { f2p: ['c1', 'c2'], p2f: ['c9'] } }).join()).toMatch(/tolerates 0/);
  });
});

describe('what approval trusts the pending commit on', () => {
  it("this machine's record of the gate holding that very commit, else the approver's word for that very commit, else nothing", () => {
    expect(pendingTrust(intact)).toBe('gate-record');
    expect(pendingTrust({ ...intact, vouchedFor: PENDING })).toBe('gate-record');
    // A fresh clone: no record. A consistent forgery would pass every other check, so it is not trusted.
    expect(pendingTrust({ ...intact, gateRecord: null })).toBeNull();
    // A record from before the pending commit was stored names the candidate only: not enough.
    expect(pendingTrust({ ...intact, gateRecord: { candidate: GATED, pendingCommit: null } })).toBeNull();
    expect(pendingTrust({ ...intact, gateRecord: null, vouchedFor: PENDING })).toBe('approver-review');
    expect(pendingTrust({ ...intact, gateRecord: null, vouchedFor: sha('8') })).toBeNull();
    expect(pendingTrust({ ...intact, gateRecord: { candidate: GATED, pendingCommit: sha('9') } })).toBeNull();
  });
});
