// Approval promotes only what was gated. A pending release is held as a real pending ref (the
// same transaction `iterate` uses); then the ref is moved to another commit, in the ways a
// collaborator's push plus `sync`, or a person with git, can move it. `approve` refuses each
// with one clear error and exit 2, and no ref moves. The untouched pending release is approved.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { holdForApproval } from '../../src/pipeline/gate/release.ts';
import { openWorkspace } from '../../src/pipeline/workspace/workspace.ts';
import type { ReleaseEvidence } from '../../src/stages/release/artifacts.ts';
import type { CaseSummary } from '../../src/stages/gate/flips.ts';
import { decideGate } from '../../src/stages/gate/gate.ts';
import { flipsOnly } from '../../src/stages/gate/layers.ts';
import { screen } from '../../src/stages/gate/screening.ts';
import { cli, exampleWorkspace, git, lineState } from '../helpers/workspace.ts';
import { wordDiff } from '../../src/adapters/text-diff/word-diff.ts';

const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
const PENDING = 'refs/agentdevel/pending/support-agent/iter-001';
const FOLDER = 'releases/support-agent/pending/iter-001';

function edit(file: string, change: (text: string) => string): void {
  writeFileSync(file, change(readFileSync(file, 'utf8')));
}

function evidence(commit: string, base: string, tree: string): ReleaseEvidence {
  const baseline = new Map<string, CaseSummary>([['c1', { caseId: 'c1', trials: 1, passes: 0, graded: 1, outcome: 'fail', symptom: 'x', description: 'd' }]]);
  const decision = flipsOnly(
    decideGate({
      policy: { maxP2F: 0, maxP2FRate: 0, minF2P: 1, minHitRate: 0, maxUngradedShare: 1 },
      flips: { p2f: [], f2p: ['c1'], p2p: [], f2f: [], ungraded: [], unmatched: [] },
      screening: screen(baseline, new Map()),
      baseline,
      candidate: new Map(),
      intent: { targets: ['x'], rationale: 'why' },
      warnings: [],
    }),
  );
  return {
    iteration: 1,
    blueprint: 'support-agent',
    outcome: 'pending',
    release: 'support-agent/v1',
    candidate: { ref: 'rc-1', commit, tree, parent: base },
    baseline: { commit: base, label: 'main', runId: 'run-a', recordRunIds: ['run-a'] },
    candidateRunId: 'run-b',
    confirmationRunIds: [],
    fingerprint: null,
    decision,
    intent: { targets: ['x'], rationale: 'why' },
    baselineCases: new Map(),
    candidateCases: new Map(),
    edits: [{ status: 'M', path: 'blueprints/support-agent/system.hbs' }],
    diagnosis: null,
    simulated: true,
    mockRoles: ['agent', 'critic'],
    models: { agent: 'mock' },
    cost: null,
    cases: null,
  };
}

describe('approve promotes only what the gate accepted', () => {
  let dir: string;
  let base: string;
  let gated: string;
  let pendingCommit: string;
  /** A scratch checkout for building the commits the pending ref is moved to. */
  let scratch: string;

  beforeAll(async () => {
    dir = await exampleWorkspace();
    const configFile = path.join(dir, 'agentdevel.config.json');
    edit(configFile, (text) => text.replace('{ "layer": "requirements" }]', '{ "layer": "requirements" }, { "layer": "approval" }]'));
    git(dir, 'commit', '-qam', 'a person approves releases');
    base = git(dir, 'rev-parse', 'HEAD');
    // Opened first: opening removes checkouts a killed command left under .agentdevel/worktrees.
    const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock });
    const worktree = path.join(dir, '.agentdevel', 'worktrees', 'rc-iter-001');
    git(dir, 'worktree', 'add', '-q', '-b', 'rc-1', worktree, 'main');
    edit(path.join(worktree, 'blueprints/support-agent/system.hbs'), (text) => `${text}\nBe brief.\n`);
    git(worktree, 'commit', '-qam', 'rc: be brief');
    gated = git(worktree, 'rev-parse', 'HEAD');
    await holdForApproval(workspace, worktree, base, evidence(gated, base, git(dir, 'rev-parse', `${gated}^{tree}`)), { textDiff: wordDiff });
    await workspace.close();
    git(dir, 'worktree', 'remove', '--force', worktree);
    git(dir, 'branch', '-qD', 'rc-1');
    pendingCommit = git(dir, 'rev-parse', PENDING);
    scratch = path.join(path.dirname(dir), 'scratch');
    git(dir, 'worktree', 'add', '-q', '--detach', scratch, pendingCommit);
  });

  /** Commits what `change` does in the scratch checkout, on top of `parent` (detached). */
  function commitOn(parent: string, change: (root: string) => void, message: string): string {
    git(scratch, 'checkout', '-q', '--detach', parent);
    change(scratch);
    git(scratch, 'add', '-A');
    git(scratch, 'commit', '-qm', message);
    return git(scratch, 'rev-parse', 'HEAD');
  }

  const ways: Array<[string, () => string, RegExp]> = [
    [
      "edits to the task's cases and to the config (removing the approval layer), in the commit on top of the candidate",
      () => {
        // The pending commit rewritten: the report of the decision plus edits no gate saw.
        git(scratch, 'checkout', '-q', '--detach', pendingCommit);
        git(scratch, 'reset', '-q', '--soft', gated);
        edit(path.join(scratch, 'rubrics/orders/train.jsonl'), (text) => text.split('\n').slice(1).join('\n'));
        edit(path.join(scratch, 'agentdevel.config.json'), (text) => text.replace(', { "layer": "approval" }]', ']'));
        git(scratch, 'add', '-A');
        git(scratch, 'commit', '-qm', 'agentdevel: hold release candidate (iteration 1) for approval as support-agent/v1');
        return git(scratch, 'rev-parse', 'HEAD');
      },
      /on top of the gated candidate it changes agentdevel\.config\.json, rubrics\/orders\/train\.jsonl, which no decision writes/,
    ],
    [
      'blueprint code never gated, fast-forwarded on top of the pending release (a push plus `sync`)',
      () => commitOn(pendingCommit, (root) => edit(path.join(root, 'blueprints/support-agent/system.hbs'), (text) => `${text}\nIgnore the customer.\n`), 'a follow-up'),
      /sits on [0-9a-f]{10}, not on the gated candidate [0-9a-f]{10} alone/,
    ],
    [
      "a parentless commit with the pending release's files",
      () => git(dir, 'commit-tree', `${pendingCommit}^{tree}`, '-m', 'agentdevel: hold release candidate (iteration 1)'),
      /has no parent: promoting it would drop the line's history/,
    ],
    [
      'blueprint code never gated, with a decision document rewritten to name it',
      () => {
        const other = commitOn(base, (root) => edit(path.join(root, 'blueprints/support-agent/system.hbs'), (text) => `${text}\nNever confirm.\n`), 'rc: never confirm');
        const tree = git(dir, 'rev-parse', `${other}^{tree}`);
        return commitOn(
          other,
          (root) => {
            git(root, 'checkout', pendingCommit, '--', FOLDER);
            edit(path.join(root, FOLDER, 'decision.json'), (text) => text.replaceAll(gated, other).replace(/"tree": "[0-9a-f]+"/, `"tree": "${tree}"`));
          },
          'agentdevel: hold release candidate (iteration 1) for approval as support-agent/v1',
        );
      },
      /refs\/agentdevel\/rc\/support-agent\/iter-001, written together with the pending ref, points at [0-9a-f]{10}, not at [0-9a-f]{10}/,
    ],
  ];

  it.each(ways)('refuses %s; no ref moves', (_name, move, reason) => {
    const moved = move();
    git(dir, 'update-ref', PENDING, moved, pendingCommit);
    try {
      const before = lineState(dir);
      const result = cli(['approve', '1', '--by', 'Reviewer', '-C', dir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error PENDING_NOT_GATED: refs\/agentdevel\/pending\/support-agent\/iter-001 is not the release candidate the gate accepted in iteration 1: /m);
      expect(result.stderr).toMatch(reason);
      expect(result.stderr).toMatch(/nothing was approved/);
      expect(lineState(dir)).toBe(before);
      expect(git(dir, 'tag')).toBe('');
    } finally {
      git(dir, 'update-ref', PENDING, pendingCommit, moved);
    }
  });

  it('approves the pending release the gate accepted', () => {
    const result = cli(['approve', '1', '--by', 'Reviewer', '--json', '-C', dir]);
    expect(result.code).toBe(0);
    expect(git(dir, 'rev-parse', 'main^')).toBe(pendingCommit);
    expect(git(dir, 'rev-parse', 'main^^')).toBe(gated);
    expect(git(dir, 'tag')).toBe('support-agent/v1');
  });

  it('a stale pending release (gated before the line moved) stops iterate with how to clear it; decline clears it', async () => {
    // The line moved (the approval above). A second pending release, gated on the release before it, is left.
    const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock });
    const worktree = path.join(dir, '.agentdevel', 'worktrees', 'rc-iter-002');
    git(dir, 'worktree', 'add', '-q', '-b', 'rc-2', worktree, base);
    edit(path.join(worktree, 'blueprints/support-agent/system.hbs'), (text) => `${text}\nBe warm.\n`);
    git(worktree, 'commit', '-qam', 'rc: be warm');
    const stale = git(worktree, 'rev-parse', 'HEAD');
    await holdForApproval(workspace, worktree, base, { ...evidence(stale, base, git(dir, 'rev-parse', `${stale}^{tree}`)), iteration: 2 }, { textDiff: wordDiff });
    await workspace.close();
    git(dir, 'worktree', 'remove', '--force', worktree);
    git(dir, 'branch', '-qD', 'rc-2');

    const iterate = cli(['iterate', '--max-iterations', '1', '--json', '-C', dir]);
    expect(iterate.code, iterate.stderr).toBe(0);
    const outcome = JSON.parse(iterate.stdout) as { iterations: unknown[]; stopReason: string };
    expect(outcome.iterations).toEqual([]);
    expect(outcome.stopReason).toMatch(
      /^the release candidate of iteration 2 \(support-agent\/v1\) is stale: it was gated on [0-9a-f]{10}, and the line has moved to [0-9a-f]{10} since, so it can no longer be approved; clear it with `agentdevel decline 2 --reason superseded`$/,
    );
    const decline = cli(['decline', '2', '--reason', 'superseded', '-C', dir]);
    expect(decline.code, decline.stderr).toBe(0);
    expect(git(dir, 'for-each-ref', 'refs/agentdevel/pending/')).toBe('');
  });
});
