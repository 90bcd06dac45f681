// Paths as agentdevel reads them from git. A version's fingerprints (its blueprint's folder and
// its task's) are read in one listing of the checkout: each must be the folder's own, as if read
// alone, and the value existing stores hold (records are reused by it). A file whose name git
// would quote is a file of its folder, in the fingerprint and in what a candidate changed.
// Real git, a real checkout.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitRepo } from '../../src/adapters/git/git.ts';
import { git, tempDir, writeFileIn } from '../helpers/workspace.ts';

/** The fingerprint as stores hold it: sha256 over each file's path and content, by path, each followed by NUL. */
function expected(files: Record<string, string>): string {
  const hash = createHash('sha256');
  for (const file of Object.keys(files).sort()) hash.update(file).update('\0').update(files[file] as string).update('\0');
  return hash.digest('hex');
}

describe('paths read from git', () => {
  it('folder fingerprints read together give each folder what it gives alone, with nothing of a neighbour whose name it begins', async () => {
    const dir = tempDir('agentdevel-fingerprints-');
    git(dir, 'init', '-q', '-b', 'main');
    writeFileIn(dir, 'blueprints/agent/prompt.hbs', 'Answer.\n');
    writeFileIn(dir, 'rubrics/orders/task.json', '{}\n');
    writeFileIn(dir, 'rubrics/orders2/task.json', '{"other":true}\n');
    writeFileIn(dir, 'rubrics/orders/ignored.log', 'noise\n');
    writeFileIn(dir, '.gitignore', '*.log\n');
    git(dir, 'add', '-A');
    git(dir, '-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '-qm', 'start');
    // Uncommitted and untracked files count, as a run would see them.
    writeFileSync(path.join(dir, 'blueprints/agent/prompt.hbs'), 'Answer briefly.\n');
    writeFileIn(dir, 'rubrics/orders/train.jsonl', '{"id":"a"}\n');
    const repo = await GitRepo.open(dir);

    const [blueprint, task] = await repo.folderFingerprints(dir, ['blueprints/agent', 'rubrics/orders']);
    expect(blueprint).toBe(expected({ 'blueprints/agent/prompt.hbs': 'Answer briefly.\n' }));
    expect(task).toBe(expected({ 'rubrics/orders/task.json': '{}\n', 'rubrics/orders/train.jsonl': '{"id":"a"}\n' }));
    expect(blueprint).toBe(await repo.folderFingerprint(dir, 'blueprints/agent'));
    expect(task).toBe(await repo.folderFingerprint(dir, 'rubrics/orders'));
    expect(blueprint).not.toBe(task);

    // A folder whose name begins another's, asked for in the same listing, keeps to its own files.
    expect(await repo.folderFingerprints(dir, ['rubrics/orders', 'rubrics/orders2'])).toEqual([task, await repo.folderFingerprint(dir, 'rubrics/orders2')]);

    // The neighbour `rubrics/orders2` and the ignored file are not part of `rubrics/orders`.
    writeFileSync(path.join(dir, 'rubrics/orders2/task.json'), '{"other":false}\n');
    writeFileSync(path.join(dir, 'rubrics/orders/ignored.log'), 'more noise\n');
    expect((await repo.folderFingerprints(dir, ['blueprints/agent', 'rubrics/orders']))[1]).toBe(task);
    // A change in the folder is.
    writeFileIn(dir, 'rubrics/orders/test.jsonl', '{"id":"b"}\n');
    const [sameBlueprint, changedTask] = await repo.folderFingerprints(dir, ['blueprints/agent', 'rubrics/orders']);
    expect(sameBlueprint).toBe(blueprint);
    expect(changedTask).not.toBe(task);
  });

  it('a fingerprint counts a file whose name git would quote (non-ASCII, a quote, a tab): a change to it is a new version', async () => {
    const dir = tempDir('agentdevel-fingerprints-');
    git(dir, 'init', '-q', '-b', 'main');
    const names = ['blueprints/agent/prompt-\u00e9t\u00e9.md', 'blueprints/agent/say "hi".txt', 'blueprints/agent/tab\there.txt'];
    for (const name of names) writeFileIn(dir, name, 'one\n');
    const repo = await GitRepo.open(dir);
    const [before] = await repo.folderFingerprints(dir, ['blueprints/agent']);
    expect(before).toBe(expected(Object.fromEntries(names.map((name) => [name, 'one\n']))));
    for (const name of names) {
      writeFileIn(dir, name, 'two\n');
      const [after] = await repo.folderFingerprints(dir, ['blueprints/agent']);
      expect(after, name).not.toBe(before);
      writeFileIn(dir, name, 'one\n');
    }
  });

  it('changed and uncommitted files are named as they are, whatever git would quote, so each counts as its folder\'s', async () => {
    const dir = tempDir('agentdevel-paths-');
    git(dir, 'init', '-q', '-b', 'main');
    // The staged rename below is listed as one, whatever the machine's git config says.
    git(dir, 'config', 'status.renames', 'true');
    const names = ['blueprints/agent/prompt-\u00e9t\u00e9.md', 'blueprints/agent/say "hi".txt', 'blueprints/agent/tab\there.txt'];
    for (const name of names) writeFileIn(dir, name, 'one\n');
    writeFileIn(dir, 'blueprints/agent/old-name.md', 'same\n');
    const commit = (message: string) => git(dir, '-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '-qam', message);
    git(dir, 'add', '-A');
    commit('one');
    const before = git(dir, 'rev-parse', 'HEAD').trim();
    for (const name of names) writeFileIn(dir, name, 'two\n');
    git(dir, 'mv', 'blueprints/agent/old-name.md', 'blueprints/agent/new name.md');
    const repo = await GitRepo.open(dir);
    // A staged rename is named by its new path.
    expect((await repo.uncommittedPaths()).sort()).toEqual(['blueprints/agent/new name.md', ...names].sort());
    commit('two');
    const after = git(dir, 'rev-parse', 'HEAD').trim();
    const expectedChanges = [
      { status: 'A', path: 'blueprints/agent/new name.md' },
      { status: 'D', path: 'blueprints/agent/old-name.md' },
      ...names.map((path) => ({ status: 'M', path })),
    ];
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect((await repo.changedPaths(before, after)).sort(byPath)).toEqual([...expectedChanges].sort(byPath));
    const ofCommits = await repo.changedPathsOfCommits([after, before]);
    expect(ofCommits.get(after)?.sort(byPath)).toEqual([...expectedChanges].sort(byPath));
    // The first commit has no parent: nothing is listed for it.
    expect(ofCommits.get(before)).toEqual([]);

    // A merge lists its changes against each parent, the first parent's first.
    git(dir, 'switch', '-q', '-c', 'side', before);
    writeFileIn(dir, 'blueprints/agent/side \u00e9.md', 'side\n');
    git(dir, 'add', '-A');
    commit('side');
    git(dir, 'switch', '-q', 'main');
    git(dir, '-c', 'user.name=A', '-c', 'user.email=a@example.com', 'merge', '-q', '--no-ff', '-m', 'merge', 'side');
    const merge = git(dir, 'rev-parse', 'HEAD').trim();
    const ofMerge = (await repo.changedPathsOfCommits([merge])).get(merge) ?? [];
    expect(ofMerge[0]).toEqual({ status: 'A', path: 'blueprints/agent/side \u00e9.md' });
    expect(ofMerge.slice(1).sort(byPath)).toEqual([...expectedChanges].sort(byPath));
  });
});
