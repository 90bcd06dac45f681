// Two clones that both recorded something on refs agentdevel keeps (label aliases, gradient
// records) still sync: `sync` merges what merges, refuses what does not by name, and when git
// refuses something, its own words reach the user.
import { mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliAsync, exampleWorkspace, git, keepTrainCases, tempDir } from '../helpers/workspace.ts';

const BP = 'support-agent';
const gradientRef = (n: number) => `refs/agentdevel/gradient/${BP}/iter-${String(n).padStart(3, '0')}`;

/** A document commit made by hand: one file, on top of `parent` (what agentdevel writes on its refs). */
function documentCommit(dir: string, parent: string, name: string, content: string, message: string): string {
  const blob = spawnSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: content, encoding: 'utf8' }).stdout.trim();
  const tree = spawnSync('git', ['mktree'], { cwd: dir, input: `100644 blob ${blob}\t${name}\n`, encoding: 'utf8' }).stdout.trim();
  return git(dir, 'commit-tree', tree, '-p', parent, '-m', message);
}

let remote: string;
beforeAll(async () => {
  const original = await exampleWorkspace();
  keepTrainCases(original, (_id, index) => index < 12);
  git(original, 'commit', '-qam', '12 train cases');
  const iterated = await cliAsync(['iterate', '--max-iterations', '1', '-C', original]);
  if (iterated.code !== 0) throw new Error(iterated.stderr);
  remote = path.join(tempDir(), 'remote.git');
  git(path.dirname(remote), 'clone', '-q', '--bare', original, remote);
  git(original, 'push', '-q', remote, 'refs/agentdevel/*:refs/agentdevel/*');
}, 240_000);

async function cloneOf(name: string): Promise<string> {
  const dir = path.join(mkdtempSync(path.join(tempDir(), `${name}-`)), name);
  git(path.dirname(dir), 'clone', '-q', remote, dir);
  const synced = await cliAsync(['sync', '--fetch-only', '-C', dir]);
  expect(synced.code, synced.stderr).toBe(0);
  return dir;
}

describe('sync between two clones', () => {
  it('merges label aliases recorded in both, chains an iteration’s gradient records onto an earlier attempt’s, and pushes', async () => {
    const a = await cloneOf('a');
    const b = await cloneOf('b');
    const labels = (JSON.parse((await cliAsync(['labels', '--json', '-C', a])).stdout) as { labels: Array<{ label: string }> }).labels.map((l) => l.label);
    expect(labels.length).toBeGreaterThanOrEqual(2);
    const [first, second] = labels as [string, string];

    // B tried iteration 2, which ended with no RC (no audit ref, so the number is taken again): its gradient records are synced.
    git(b, 'update-ref', gradientRef(2), documentCommit(b, git(b, 'rev-parse', 'HEAD'), 'gradient.json', '{"attempt": "b"}\n', 'gradient records of iteration 2 (b)'));
    expect((await cliAsync(['sync', '-C', b])).code).toBe(0);
    // A fetches them, then runs iteration 2 itself: its records chain onto B's, so the ref only moves forward.
    expect((await cliAsync(['sync', '--fetch-only', '-C', a])).code).toBe(0);
    const earlier = git(a, 'rev-parse', gradientRef(2));
    const iterated = await cliAsync(['iterate', '--max-iterations', '1', '-C', a]);
    expect(iterated.code, iterated.stderr).toBe(0);
    expect(git(a, 'rev-parse', gradientRef(2))).not.toBe(earlier);
    expect(git(a, 'merge-base', '--is-ancestor', earlier, gradientRef(2))).toBe('');

    // Both merge labels (differently) before either syncs; and both record iteration 9's gradient by hand.
    expect((await cliAsync(['labels', 'merge', first, second, '-C', a])).code).toBe(0);
    expect((await cliAsync(['labels', 'merge', first, second, '--into', 'one_fault', '-C', b])).code).toBe(0);
    for (const [dir, attempt] of [[a, 'a'], [b, 'b']] as const) git(dir, 'update-ref', gradientRef(9), documentCommit(dir, git(dir, 'rev-parse', 'HEAD'), 'gradient.json', `{"attempt": "${attempt}"}\n`, `iteration 9 (${attempt})`));

    const fromA = await cliAsync(['sync', '-C', a]);
    expect(fromA.code, fromA.stderr).toBe(0);
    // A's iteration may have moved the line: B pulls it, as a user would before pushing.
    git(b, 'pull', '-q', '--ff-only', 'origin', 'main');
    const fromB = await cliAsync(['sync', '-C', b]);
    expect(fromB.stderr).not.toMatch(/GIT_FAILED/);
    expect(fromB.code, fromB.stderr).toBe(0);
    expect(fromB.stdout).toMatch(new RegExp(`merged: refs/agentdevel/labels/${BP} \\(the aliases of both\\)`));
    expect(fromB.stdout).toMatch(/merged: refs\/agentdevel\/gradient\/support-agent\/iter-009 \(both attempts kept/);
    const again = await cliAsync(['sync', '-C', a]);
    expect(again.code, again.stderr).toBe(0);

    // One document in both clones and the remote, with every alias of either.
    const document = git(a, 'show', `refs/agentdevel/labels/${BP}:labels.json`);
    expect(git(b, 'show', `refs/agentdevel/labels/${BP}:labels.json`)).toBe(document);
    expect(git(remote, 'rev-parse', `refs/agentdevel/labels/${BP}`)).toBe(git(a, 'rev-parse', `refs/agentdevel/labels/${BP}`));
    const aliases = (JSON.parse(document) as { schema: string; aliases: Array<{ from: string; to: string }> });
    expect(aliases.schema).toBe('agentdevel/labels@2');
    expect(aliases.aliases.map((x) => `${x.from}>${x.to}`).sort()).toEqual([`${first}>one_fault`, `${second}>${first}`, `${second}>one_fault`].sort());
    // Iteration 9's records: B's at the tip in B, both attempts in its history.
    expect(git(b, 'log', '--format=%s', gradientRef(9))).toMatch(/iteration 9 \(a\)[\s\S]*iteration 9 \(b\)|iteration 9 \(b\)[\s\S]*iteration 9 \(a\)/);
    expect(git(a, 'show', `${gradientRef(9)}:gradient.json`)).toContain('"attempt": "b"');
    expect(git(a, 'for-each-ref', 'refs/agentdevel-fetched')).toBe('');
  }, 300_000);

  it('names a ref both clones recorded differently, and carries git’s own words when git refuses', async () => {
    const a = await cloneOf('a');
    const b = await cloneOf('b');
    const audit = `refs/agentdevel/rc/${BP}/iter-077`;
    for (const dir of [a, b]) git(dir, 'update-ref', audit, documentCommit(dir, git(dir, 'rev-parse', 'HEAD'), 'x.json', `${dir}\n`, 'an RC of iteration 77'));
    expect((await cliAsync(['sync', '-C', a])).code).toBe(0);
    const conflict = await cliAsync(['sync', '-C', b]);
    expect(conflict.code).toBe(3);
    expect(conflict.stderr).toMatch(new RegExp(`error GIT_FAILED: sync: ${audit} differs here and on origin, and neither contains the other`));

    // A release tag both made: git refuses to clobber it, and says so.
    const tag = `${BP}/v77`;
    writeFileSync(path.join(a, 'note.txt'), 'a\n');
    git(a, 'add', 'note.txt');
    git(a, 'commit', '-qm', 'a');
    git(a, 'tag', '-a', tag, '-m', 'a');
    git(a, 'push', '-q', 'origin', `refs/tags/${tag}`);
    git(b, 'tag', '-a', tag, '-m', 'b');
    const refused = await cliAsync(['sync', '--fetch-only', '-C', b]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(new RegExp(`error GIT_FAILED: git fetch origin failed: .*\\[rejected\\].*${tag.replace('/', '\\/')}.*would clobber existing tag`));
    expect(refused.stderr).not.toMatch(/failed: exit 1/);
  }, 180_000);
});
