import { describe, expect, it } from 'vitest';
import { pendingIntegrityProblems, type PendingFacts } from '../../src/stages/release/pending-integrity.ts';

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
  storedCandidate: GATED,
};

describe('approval promotes only what was gated', () => {
  it('finds nothing wrong with the pending release the gate recorded, nor with one recorded before the tree and parent were', () => {
    expect(pendingIntegrityProblems(intact)).toEqual([]);
    expect(pendingIntegrityProblems({ ...intact, recorded: { commit: GATED, tree: null, parent: null }, storedCandidate: null })).toEqual([]);
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
    ['a candidate whose blueprint links out', { candidate: { ...(intact.candidate as NonNullable<PendingFacts['candidate']>), linksLeaving: ['blueprints/bp/x -> ../../rubrics'] } }, /links out of its folder: blueprints\/bp\/x -> \.\.\/\.\.\/rubrics/],
    ['a pending ref moved without its audit ref', { auditCommit: sha('5') }, /refs\/agentdevel\/rc\/bp\/iter-002, written together with the pending ref, points at 5555555555, not at dddddddddd/],
    ['a decision document rewritten to name another candidate', { storedCandidate: sha('4') }, /this workspace's store recorded 4444444444 as the candidate of iteration 2, the pending decision names cccccccccc/],
  ])('refuses %s', (_name, change, problem) => {
    const problems = pendingIntegrityProblems({ ...intact, ...change });
    expect(problems.join('\n')).toMatch(problem);
  });
});
