// Approval promotes only what was gated. A pending release is held as a real pending ref (the
// same transaction `iterate` uses) and recorded in the store as the gate records it; then the
// ref is moved to another commit, in the ways a collaborator's push plus `sync`, or a person
// with git, can move it. `approve` refuses each with one clear error and exit 2, and no ref
// moves. In a fresh clone (no record of the gate), even the genuine pending release is approved
// only on the approver's word for its full commit id. The untouched pending release is approved.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordRelease } from '../helpers/record-release.ts';
import { openWorkspace } from '../../src/app/workspace.ts';
import type { ReleaseEvidence } from '../../src/stages/release/artifacts.ts';
import type { CaseSummary } from '../../src/stages/gate/flips.ts';
import { decideFlipsAtFaceValue } from '../../src/stages/gate/face-value-gate.ts';
import { composeLayers, flipsOnly } from '../../src/stages/gate/layers.ts';
import { screen } from '../../src/stages/gate/screening.ts';
import { cli, exampleWorkspace, git, lineState } from '../helpers/workspace.ts';
import { releaseEvidence } from '../helpers/records.ts';

const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
const PENDING = 'refs/agentdevel/pending/support-agent/iter-001';
const AUDIT = 'refs/agentdevel/rc/support-agent/iter-001';
const FOLDER = 'releases/support-agent/pending/iter-001';

function edit(file: string, change: (text: string) => string): void {
  writeFileSync(file, change(readFileSync(file, 'utf8')));
}

function evidence(commit: string, base: string, tree: string): ReleaseEvidence {
  const baseline = new Map<string, CaseSummary>([['c1', { caseId: 'c1', trials: 1, passes: 0, graded: 1, outcome: 'fail', symptom: 'x', description: 'd' }]]);
  // Accepted by the flips layer, then held by the approval layer, as decideLayers composes it.
  const decision = composeLayers(
    flipsOnly(
      decideFlipsAtFaceValue({
      policy: { maxP2F: 0, maxP2FRate: 0, minF2P: 1, minHitRate: 0, maxUngradedShare: 1 },
      flips: { p2f: [], f2p: ['c1'], p2p: [], f2f: [], ungraded: [], unmatched: [] },
      screening: screen(baseline, new Map()),
      baseline,
      candidate: new Map(),
      intent: { targets: ['x'], rationale: 'why' },
      warnings: [],
      }),
    ),
    { approval: true },
  );
  return releaseEvidence({
    blueprint: 'support-agent',
    outcome: 'pending',
    release: 'support-agent/v1',
    candidate: { ref: 'rc-1', commit, tree, parent: base },
    baseline: { commit: base, label: 'main', runId: 'run-a', recordRunIds: ['run-a'] },
    decision,
    edits: [{ status: 'M', path: 'blueprints/support-agent/system.hbs' }],
  });
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
    const held = await recordRelease(workspace, worktree, base, evidence(gated, base, git(dir, 'rev-parse', `${gated}^{tree}`)));
    // What concludeCandidate records next: the decision, with the very commit the gate wrote.
    workspace.store.saveDecision({ blueprint: 'support-agent', iteration: 1, candidateRef: 'rc-1', candidateCommit: gated, baselineRun: null, candidateRun: null, outcome: 'pending', reasons: [], intent: null, tag: null, auditRef: held.auditRef, recordedCommit: held.commit, f2p: ['c1'], p2f: [] });
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

  /** The pending commit with its decision.json edited, on top of `candidate`; the other report files as the gate wrote them. */
  function rewrittenDecision(candidate: string, change: (text: string) => string): string {
    return commitOn(
      candidate,
      (root) => {
        git(root, 'checkout', pendingCommit, '--', FOLDER);
        const file = path.join(root, FOLDER, 'decision.json');
        const original = readFileSync(file, 'utf8');
        edit(file, change);
        expect(readFileSync(file, 'utf8')).not.toBe(original);
      },
      'agentdevel: hold release candidate (iteration 1) for approval as support-agent/v1',
    );
  }

  /** Moves the pending and audit refs together (as one push plus `sync` can), runs approve, and puts them back. */
  function approveMoved(repo: string, moved: string, args: readonly string[] = []): ReturnType<typeof cli> {
    const before = git(repo, 'rev-parse', PENDING);
    git(repo, 'update-ref', PENDING, moved, before);
    git(repo, 'update-ref', AUDIT, moved, before);
    try {
      const state = lineState(repo);
      const result = cli(['approve', '1', '--by', 'Reviewer', ...args, '-C', repo]);
      if (result.code !== 0) expect(lineState(repo)).toBe(state);
      return result;
    } finally {
      if (git(repo, 'rev-parse', '--verify', '-q', PENDING) === moved) {
        git(repo, 'update-ref', PENDING, before, moved);
        git(repo, 'update-ref', AUDIT, before, moved);
      }
    }
  }

  it.each<[string, (text: string) => string]>([
    ['a forged rationale', (text) => text.replace('"rationale": "why"', '"rationale": "approved by the security team"')],
    ['a forged rationale and release v7', (text) => text.replace('"rationale": "why"', '"rationale": "hotfix"').replace('"release": "support-agent/v1"', '"release": "support-agent/v7"')],
  ])('refuses decision documents rewritten on top of the gated candidate (%s), pending and audit refs moved together', (_name, change) => {
    const forged = rewrittenDecision(gated, change);
    const result = approveMoved(dir, forged);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error PENDING_NOT_GATED: /m);
    expect(result.stderr).toMatch(/the gate on this machine held [0-9a-f]{10} for approval in iteration 1, the pending ref points at [0-9a-f]{10}/);
    expect(git(dir, 'tag')).toBe('');
  });

  describe("in a reviewer's fresh clone, without the gate's record", () => {
    let clone: string;

    beforeAll(() => {
      clone = path.join(path.dirname(dir), 'review-clone');
      git(path.dirname(dir), 'clone', '-q', dir, clone);
      git(clone, 'fetch', '-q', 'origin', 'refs/agentdevel/*:refs/agentdevel/*');
    });

    it('refuses even the genuine pending release, saying how to approve it; a short --trust-pending is bad usage', () => {
      const result = cli(['approve', '1', '--by', 'Reviewer', '-C', clone]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error PENDING_UNVERIFIED: refs\/agentdevel\/pending\/support-agent\/iter-001 \([0-9a-f]{40}\) is consistent, but this workspace has no record of the gate holding it: .*nothing was approved$/m);
      expect(result.stderr).toContain(`agentdevel gate --candidate ${gated} --promote`);
      expect(result.stderr).toContain(`agentdevel approve 1 --trust-pending ${pendingCommit}`);
      const short = cli(['approve', '1', '--trust-pending', pendingCommit.slice(0, 12), '-C', clone]);
      expect(short.code).toBe(2);
      expect(short.stderr).toMatch(/^error USAGE: --trust-pending: "[0-9a-f]{12}" is not a full commit id/m);
      expect(git(clone, 'tag')).toBe('');
    });

    it('refuses a consistent forgery (ungated candidate, rewritten decision, pending and audit refs moved), also when the approver vouched for another commit', () => {
      const other = commitOn(base, (root) => edit(path.join(root, 'blueprints/support-agent/system.hbs'), (text) => `${text}\nNever confirm.\n`), 'rc: never confirm');
      const tree = git(dir, 'rev-parse', `${other}^{tree}`);
      const forged = rewrittenDecision(other, (text) => text.replaceAll(gated, other).replace(/"tree": "[0-9a-f]+"/, `"tree": "${tree}"`));
      git(dir, 'update-ref', 'refs/forgery/pending', forged);
      git(clone, 'fetch', '-q', 'origin', 'refs/forgery/pending:refs/forgery/pending');
      const unverified = approveMoved(clone, forged);
      expect(unverified.code).toBe(2);
      expect(unverified.stderr).toMatch(new RegExp(`^error PENDING_UNVERIFIED: refs/agentdevel/pending/support-agent/iter-001 \\(${forged}\\) is consistent, but`, 'm'));
      const vouched = approveMoved(clone, forged, ['--trust-pending', pendingCommit]);
      expect(vouched.code).toBe(2);
      expect(vouched.stderr).toMatch(/^error PENDING_NOT_GATED: .*--trust-pending names [0-9a-f]{10}, the pending ref points at [0-9a-f]{10}/m);
      expect(git(clone, 'tag')).toBe('');
    });

    it('approves the genuine pending release on the approver\'s word for its full id, and says so in the approval commit', () => {
      const result = cli(['approve', '1', '--by', 'Reviewer', '--trust-pending', pendingCommit.toUpperCase(), '--json', '-C', clone]);
      expect(result.code, result.stderr).toBe(0);
      expect(git(clone, 'rev-parse', 'main^')).toBe(pendingCommit);
      expect(git(clone, 'tag')).toBe('support-agent/v1');
      expect(git(clone, 'log', '-1', '--format=%B', 'main')).toContain(`the approver reviewed and vouched for pending commit ${pendingCommit} (--trust-pending)`);
    });
  });

  it('approves the pending release the gate accepted', () => {
    const result = cli(['approve', '1', '--by', 'Reviewer', '--json', '-C', dir]);
    expect(result.code).toBe(0);
    expect(git(dir, 'rev-parse', 'main^')).toBe(pendingCommit);
    expect(git(dir, 'rev-parse', 'main^^')).toBe(gated);
    expect(git(dir, 'tag')).toBe('support-agent/v1');
    expect(git(dir, 'log', '-1', '--format=%B', 'main')).toContain(`The gate on the approving machine recorded pending commit ${pendingCommit}.`);
  });

  it('a stale pending release (gated before the line moved) stops iterate with how to clear it; decline clears it', async () => {
    // The line moved (the approval above). A second pending release, gated on the release before it, is left.
    const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock });
    const worktree = path.join(dir, '.agentdevel', 'worktrees', 'rc-iter-002');
    git(dir, 'worktree', 'add', '-q', '-b', 'rc-2', worktree, base);
    edit(path.join(worktree, 'blueprints/support-agent/system.hbs'), (text) => `${text}\nBe warm.\n`);
    git(worktree, 'commit', '-qam', 'rc: be warm');
    const stale = git(worktree, 'rev-parse', 'HEAD');
    await recordRelease(workspace, worktree, base, { ...evidence(stale, base, git(dir, 'rev-parse', `${stale}^{tree}`)), iteration: 2 });
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
