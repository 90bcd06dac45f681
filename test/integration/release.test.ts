import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentdevelError } from '../../src/domain/errors.ts';
import { acquireLock } from '../../src/adapters/process/workspace-lock.ts';
import { openWorkspace } from '../../src/app/workspace.ts';
import { type Workspace } from '../../src/pipeline/workspace/workspace.ts';
import type { ReleaseEvidence } from '../../src/stages/release/artifacts.ts';
import { writeJournal } from '../../src/stages/release/journal.ts';
import type { CaseSummary } from '../../src/stages/gate/flips.ts';
import { decideFlipsAtFaceValue } from '../../src/stages/gate/face-value-gate.ts';
import { flipsOnly } from '../../src/stages/gate/layers.ts';
import { screen } from '../../src/stages/gate/screening.ts';
import { exampleWorkspace, git, tempDir } from '../helpers/workspace.ts';
import { releaseEvidence } from '../helpers/records.ts';
import { recordRelease } from '../helpers/record-release.ts';

const clock = { now: () => new Date('2026-11-22T10:00:00Z') };

async function open(dir: string): Promise<Workspace> {
  return openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock });
}

/** A candidate: a commit on its own branch, checked out in a worktree (as iterate builds one). */
function candidate(dir: string, iteration: number): { dir: string; commit: string } {
  const worktree = path.join(dir, '.agentdevel', 'worktrees', `rc-${iteration}`);
  git(dir, 'worktree', 'add', '-q', '-b', `rc-${iteration}`, worktree, 'main');
  const prompt = path.join(worktree, 'blueprints/support-agent/system.hbs');
  writeFileSync(prompt, `${readFileSync(prompt, 'utf8')}\nBe brief.\n`);
  git(worktree, 'commit', '-qam', 'rc: be brief');
  return { dir: worktree, commit: git(worktree, 'rev-parse', 'HEAD') };
}

function evidence(iteration: number, commit: string, base: string, outcome: 'promoted' | 'rejected'): ReleaseEvidence {
  const baseline = new Map<string, CaseSummary>([
    ['c1', { caseId: 'c1', trials: 1, passes: 0, graded: 1, outcome: 'fail', symptom: 'x', description: 'd' }],
    ['c2', { caseId: 'c2', trials: 1, passes: 1, graded: 1, outcome: 'pass', symptom: null, description: null }],
  ]);
  const decision = flipsOnly(decideFlipsAtFaceValue({
    policy: { maxP2F: 0, maxP2FRate: 0, minF2P: 1, minHitRate: 0, maxUngradedShare: 1 },
    flips: { p2f: outcome === 'rejected' ? ['c2'] : [], f2p: ['c1'], p2p: [], f2f: [], ungraded: [], unmatched: [] },
    screening: screen(baseline, new Map()),
    baseline,
    candidate: new Map(),
    intent: { targets: ['x'], rationale: 'why' },
    warnings: [],
  }));
  return releaseEvidence({
    iteration,
    blueprint: 'support-agent',
    outcome,
    release: outcome === 'promoted' ? 'support-agent/v1' : null,
    candidate: { ref: `rc-${iteration}`, commit, tree: 'e'.repeat(40), parent: base },
    baseline: { commit: base, label: 'main', runId: 'run-a', recordRunIds: ['run-a'] },
    decision,
    edits: [{ status: 'M', path: 'blueprints/support-agent/system.hbs' }],
  });
}

describe('promotion', () => {
  it('moves the line, adds an annotated tag and an audit ref, and brings the clean checkout along', async () => {
    const dir = await exampleWorkspace();
    const base = git(dir, 'rev-parse', 'HEAD');
    const workspace = await open(dir);
    const rc = candidate(dir, 1);
    const recorded = await recordRelease(workspace, rc.dir, base, evidence(1, rc.commit, base, 'promoted'));
    await workspace.close();

    expect(git(dir, 'rev-parse', 'main')).toBe(recorded.commit);
    expect(git(dir, 'rev-parse', 'main^')).toBe(rc.commit);
    expect(git(dir, 'cat-file', '-t', 'refs/tags/support-agent/v1')).toBe('tag');
    expect(git(dir, 'tag', '-l', '--format=%(contents)', 'support-agent/v1')).toMatch(/1 fixed \(F→P\), 0 regressed \(P→F\)/);
    expect(git(dir, 'rev-parse', 'refs/agentdevel/rc/support-agent/iter-001')).toBe(recorded.commit);
    expect(readFileSync(path.join(dir, 'blueprints/support-agent/system.hbs'), 'utf8')).toContain('Be brief.');
    expect(existsSync(path.join(dir, 'releases/support-agent/v1/report.md'))).toBe(true);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(path.join(dir, '.agentdevel/promotion.json'))).toBe(false);
  });

  it('keeps local edits the release does not touch, and promotes nothing over edits it would overwrite', async () => {
    const dir = await exampleWorkspace();
    const base = git(dir, 'rev-parse', 'HEAD');
    let workspace = await open(dir);
    let rc = candidate(dir, 1);
    // An unrelated edit made while the RC was being evaluated survives the promotion.
    const rubric = path.join(dir, 'rubrics/orders/rubric.md');
    writeFileSync(rubric, `${readFileSync(rubric, 'utf8')}\nA note in progress.\n`);
    await recordRelease(workspace, rc.dir, base, evidence(1, rc.commit, base, 'promoted'));
    expect(git(dir, 'status', '--porcelain')).toBe('M rubrics/orders/rubric.md');
    expect(readFileSync(path.join(dir, 'blueprints/support-agent/system.hbs'), 'utf8')).toContain('Be brief.');
    expect(git(dir, 'diff', '--cached', '--name-only')).toBe('');
    git(dir, 'checkout', '--', 'rubrics/orders/rubric.md');
    await workspace.close();

    // An edit to a file the release changes: nothing moves, and the edit stays.
    workspace = await open(dir);
    const tip = git(dir, 'rev-parse', 'HEAD');
    rc = candidate(dir, 2);
    const prompt = path.join(dir, 'blueprints/support-agent/system.hbs');
    writeFileSync(prompt, 'my own prompt\n');
    const error = await recordRelease(workspace, rc.dir, tip, { ...evidence(2, rc.commit, tip, 'promoted'), release: 'support-agent/v2' }).catch((e: unknown) => e);
    await workspace.close();
    expect((error as AgentdevelError).code).toBe('DIRTY_TREE');
    expect(git(dir, 'rev-parse', 'main')).toBe(tip);
    expect(git(dir, 'tag', '--list', 'support-agent/v2')).toBe('');
    expect(readFileSync(prompt, 'utf8')).toBe('my own prompt\n');
    expect(existsSync(path.join(dir, '.agentdevel/promotion.json'))).toBe(false);
  });

  it('records a rejection off the line, leaving the line and tags alone', async () => {
    const dir = await exampleWorkspace();
    const base = git(dir, 'rev-parse', 'HEAD');
    const workspace = await open(dir);
    const rc = candidate(dir, 1);
    const recorded = await recordRelease(workspace, rc.dir, base, evidence(1, rc.commit, base, 'rejected'));
    await workspace.close();
    expect(git(dir, 'rev-parse', 'main')).toBe(base);
    expect(git(dir, 'tag')).toBe('');
    expect(git(dir, 'show', `${recorded.auditRef}:releases/support-agent/rejected/iter-001/decision.json`)).toContain('"outcome": "rejected"');
  });

  /** A promotion prepared up to its journal, as a process killed at that point leaves it. */
  async function journalled(dir: string, workspace: Workspace) {
    const base = git(dir, 'rev-parse', 'HEAD');
    const rc = candidate(dir, 1);
    const tagObject = await workspace.repo.createTagObject('support-agent/v1', rc.commit, 'v1');
    const journal = {
      line: 'refs/heads/main',
      lineBranch: 'main',
      oldTip: base,
      newTip: rc.commit,
      tagRef: 'refs/tags/support-agent/v1',
      tagObject,
      auditRef: 'refs/agentdevel/rc/support-agent/iter-001',
      syncWorktree: true,
    };
    await writeJournal(workspace.stateDir, journal);
    return { base, rc, tagObject };
  }

  it('finishes a promotion killed after its journal was written', async () => {
    const dir = await exampleWorkspace();
    let workspace = await open(dir);
    const { base, rc } = await journalled(dir, workspace);
    // The process dies here: nothing moved yet. The next command finishes the promotion.
    expect(git(dir, 'rev-parse', 'main')).toBe(base);
    await workspace.close();
    workspace = await open(dir);
    await workspace.close();
    expect(git(dir, 'rev-parse', 'main')).toBe(rc.commit);
    expect(git(dir, 'rev-parse', 'support-agent/v1^{commit}')).toBe(rc.commit);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(path.join(dir, '.agentdevel/promotion.json'))).toBe(false);
  });

  it('brings the checkout along when the refs moved but the files did not', async () => {
    const dir = await exampleWorkspace();
    let workspace = await open(dir);
    const { base, rc, tagObject } = await journalled(dir, workspace);
    await workspace.repo.updateRefs([
      { ref: 'refs/heads/main', newValue: rc.commit, oldValue: base },
      { ref: 'refs/tags/support-agent/v1', newValue: tagObject, oldValue: null },
    ]);
    expect(git(dir, 'status', '--porcelain')).not.toBe('');
    await workspace.close();
    workspace = await open(dir);
    await workspace.close();
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'rev-parse', 'refs/agentdevel/rc/support-agent/iter-001')).toBe(rc.commit);
  });

  it('moves the line and the tag together or not at all', async () => {
    const dir = await exampleWorkspace();
    const base = git(dir, 'rev-parse', 'HEAD');
    const workspace = await open(dir);
    const rc = candidate(dir, 1);
    git(dir, 'tag', 'support-agent/v1', base);
    const tagObject = await workspace.repo.createTagObject('support-agent/v1', rc.commit, 'v1');
    await expect(
      workspace.repo.updateRefs([
        { ref: 'refs/heads/main', newValue: rc.commit, oldValue: base },
        { ref: 'refs/tags/support-agent/v1', newValue: tagObject, oldValue: null },
      ]),
    ).rejects.toBeInstanceOf(AgentdevelError);
    await workspace.close();
    expect(git(dir, 'rev-parse', 'main')).toBe(base);
  });
});

describe('finishing a promotion from its journal', () => {
  /** A promotion interrupted right after its journal was written (nothing moved yet). */
  async function interrupted() {
    const dir = await exampleWorkspace();
    const workspace = await open(dir);
    const base = git(dir, 'rev-parse', 'HEAD');
    const rc = candidate(dir, 1);
    const tagObject = await workspace.repo.createTagObject('support-agent/v1', rc.commit, 'v1');
    const journal = { line: 'refs/heads/main', lineBranch: 'main', oldTip: base, newTip: rc.commit, tagRef: 'refs/tags/support-agent/v1', tagObject, auditRef: 'refs/agentdevel/rc/support-agent/iter-001', syncWorktree: true };
    await writeJournal(workspace.stateDir, journal);
    await workspace.close();
    return { dir, base, rc, journal: path.join(dir, '.agentdevel', 'promotion.json'), prompt: path.join(dir, 'blueprints/support-agent/system.hbs') };
  }

  async function recoveryError(dir: string): Promise<AgentdevelError> {
    const error = await open(dir).then(
      async (workspace) => {
        await workspace.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentdevelError);
    return error as AgentdevelError;
  }

  it('finishes it when the index and file times changed meanwhile, keeping the staged change', async () => {
    const { dir, rc, journal, prompt } = await interrupted();
    writeFileSync(path.join(dir, 'NOTES.md'), 'staged by the user\n');
    git(dir, 'add', 'NOTES.md');
    // Same content, new times: stat data no longer matches the index.
    writeFileSync(prompt, readFileSync(prompt, 'utf8'));
    await (await open(dir)).close();
    expect(git(dir, 'rev-parse', 'main')).toBe(rc.commit);
    expect(readFileSync(prompt, 'utf8')).toContain('Be brief.');
    expect(git(dir, 'status', '--porcelain')).toBe('A  NOTES.md');
    expect(existsSync(journal)).toBe(false);
  });

  it('stops with how to finish when a tag appeared, moving neither the line nor the checkout; then finishes', async () => {
    const { dir, base, rc, journal, prompt } = await interrupted();
    git(dir, 'tag', 'support-agent/v1', base);
    const error = await recoveryError(dir);
    expect(error.code).toBe('PROMOTION_UNFINISHED');
    expect(error.message).toMatch(/refs\/tags\/support-agent\/v1 already exists and points elsewhere.*nothing moved/);
    expect(error.hint).toMatch(/git tag -d support-agent\/v1.*or abandon the promotion by deleting .*promotion\.json/);
    expect(git(dir, 'rev-parse', 'main')).toBe(base);
    expect(readFileSync(prompt, 'utf8')).not.toContain('Be brief.');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(journal)).toBe(true);
    git(dir, 'tag', '-d', 'support-agent/v1');
    await (await open(dir)).close();
    expect(git(dir, 'rev-parse', 'main')).toBe(rc.commit);
    expect(readFileSync(prompt, 'utf8')).toContain('Be brief.');
  });

  it('never drops it silently over conflicting local edits: it stops, keeps the journal and the edits, and finishes once they are stashed', async () => {
    const { dir, base, rc, journal, prompt } = await interrupted();
    writeFileSync(prompt, 'my own prompt\n');
    const error = await recoveryError(dir);
    expect(error.code).toBe('PROMOTION_UNFINISHED');
    expect(error.message).toMatch(/uncommitted changes .* conflict with the new release/);
    expect(error.hint).toMatch(/commit or stash them/);
    expect(existsSync(journal)).toBe(true);
    expect(git(dir, 'rev-parse', 'main')).toBe(base);
    expect(readFileSync(prompt, 'utf8')).toBe('my own prompt\n');
    git(dir, 'stash', '-q');
    await (await open(dir)).close();
    expect(git(dir, 'rev-parse', 'main')).toBe(rc.commit);
    expect(existsSync(journal)).toBe(false);
  });

  it('stops with a clear error on a torn journal, keeping it and the line as they are', async () => {
    const { dir, base, journal } = await interrupted();
    writeFileSync(journal, readFileSync(journal, 'utf8').slice(0, 60));
    const error = await recoveryError(dir);
    expect(error.code).toBe('PROMOTION_UNFINISHED');
    expect(error.message).toMatch(/promotion\.json records an interrupted promotion but is damaged/);
    expect(error.hint).toMatch(/delete .*promotion\.json/);
    expect(existsSync(journal)).toBe(true);
    expect(git(dir, 'rev-parse', 'main')).toBe(base);
  });
});

describe('the workspace lock', () => {
  it('refuses a second writer while the first holds the workspace', async () => {
    const dir = await exampleWorkspace();
    const first = await open(dir);
    const error = await open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentdevelError);
    expect((error as AgentdevelError).code).toBe('WORKSPACE_LOCKED');
    expect((error as AgentdevelError).exitCode).toBe(3);
    await first.close();
    const second = await open(dir);
    await second.close();
  });

  it('lets exactly one of many simultaneous writers in at a time', async () => {
    const stateDir = tempDir('agentdevel-lock-');
    const held: Array<[number, number]> = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const lock = await acquireLock(stateDir, 'test', 20_000, () => new Date());
        const start = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 40));
        held.push([start, performance.now()]);
        await lock.release();
      }),
    );
    held.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < held.length; i += 1) expect(held[i]![0]).toBeGreaterThanOrEqual(held[i - 1]![1]);
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = await exampleWorkspace();
    await (await open(dir)).close();
    writeFileSync(path.join(dir, '.agentdevel', 'lock'), JSON.stringify({ pid: 2 ** 22 + 12345, command: 'iterate', since: 'then' }));
    const workspace = await open(dir);
    await workspace.close();
  });
});
