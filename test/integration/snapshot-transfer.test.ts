// A version carried to the workers (src/adapters/git/snapshot.ts): the snapshot's commit and
// ref are written without git, and a worker indexes the bundle's pack without `git bundle
// unbundle`. Each must give what git itself gives: the same commit id as commit-tree, the same
// files from any bundle; and a remote checkout that git converted as it wrote it is still
// accepted. Real git throughout.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packOfBundle } from '../../src/adapters/git/scratch-repository.ts';
import { bundleSnapshot, checkoutFromRemote, checkoutSnapshot } from '../../src/adapters/git/snapshot.ts';
import { git, tempDir, writeFileIn } from '../helpers/workspace.ts';

function workspace(files: Record<string, string>): string {
  const dir = tempDir('agentdevel-snapshot-');
  git(dir, 'init', '-q', '-b', 'main');
  for (const [file, text] of Object.entries(files)) writeFileIn(dir, file, text);
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '-qm', 'start');
  return dir;
}

const FILES = { 'blueprints/bp/agent.sh': 'echo hi\n', 'blueprints/bp/sub/prompt.md': 'Answer.\n', 'rubrics/task/task.json': '{}\n', 'rubrics/task/train.jsonl': '{"id":"a"}\n' };
const PATHS = ['blueprints/bp', 'rubrics/task', ':(exclude)rubrics/task/train.jsonl'];

describe('a snapshot carried to the workers', () => {
  it('is the commit git commit-tree makes of the same tree, and checks out the same files from its pack as from git bundle unbundle', async () => {
    const dir = workspace(FILES);
    const bundle = await bundleSnapshot(dir, PATHS, tempDir('agentdevel-snapshot-scratch-'));
    // The commit git would write with the fixed identity and message, whatever the user's config.
    const env = { ...process.env, GIT_AUTHOR_NAME: 'agentdevel', GIT_AUTHOR_EMAIL: 'agentdevel@localhost', GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z', GIT_COMMITTER_NAME: 'agentdevel', GIT_COMMITTER_EMAIL: 'agentdevel@localhost', GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z' };
    // The same tree, written into the workspace's own objects through an index of its own.
    const index = { ...env, GIT_INDEX_FILE: path.join(tempDir('agentdevel-snapshot-index-'), 'index') };
    expect(spawnSync('git', ['add', '-A', '--', ...PATHS], { cwd: dir, env: index }).status).toBe(0);
    expect(spawnSync('git', ['write-tree'], { cwd: dir, env: index, encoding: 'utf8' }).stdout.trim()).toBe(bundle.tree);
    const byGit = spawnSync('git', ['commit-tree', '--no-gpg-sign', bundle.tree, '-m', 'agentdevel snapshot'], { cwd: dir, env, encoding: 'utf8' });
    expect(byGit.status, byGit.stderr).toBe(0);
    expect(bundle.commit).toBe(byGit.stdout.trim());
    // git itself reads the bundle as complete, with the commit at refs/heads/snapshot.
    const file = path.join(tempDir('agentdevel-snapshot-file-'), 'snapshot.bundle');
    writeFileSync(file, bundle.bytes);
    const heads = spawnSync('git', ['bundle', 'list-heads', file], { cwd: dir, encoding: 'utf8' });
    expect(heads.stdout.trim()).toBe(`${bundle.commit} refs/heads/snapshot`);
    expect(packOfBundle(bundle.bytes)).not.toBeNull();

    const target = path.join(tempDir('agentdevel-snapshot-out-'), 'snapshot');
    await checkoutSnapshot(bundle.bytes, bundle.commit, target);
    expect(readFileSync(path.join(target, 'blueprints/bp/sub/prompt.md'), 'utf8')).toBe('Answer.\n');
    expect(existsSync(path.join(target, 'rubrics/task/train.jsonl'))).toBe(false);

    // A bundle of another shape (version 3 here) goes through git bundle unbundle and gives the same files.
    const v3 = path.join(tempDir('agentdevel-snapshot-v3-'), 'v3.bundle');
    const made = spawnSync('git', ['bundle', 'create', '-q', '--version=3', v3, 'HEAD'], { cwd: dir, encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const v3Bytes = readFileSync(v3);
    expect(packOfBundle(v3Bytes)).toBeNull();
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const other = path.join(tempDir('agentdevel-snapshot-out3-'), 'snapshot');
    await checkoutSnapshot(v3Bytes, head, other);
    expect(readFileSync(path.join(other, 'rubrics/task/train.jsonl'), 'utf8')).toBe('{"id":"a"}\n');
  });

  it('accepts a remote checkout git converted as it wrote it (.gitattributes eol=crlf), and still refuses other contents', async () => {
    const dir = workspace({ ...FILES, 'blueprints/bp/.gitattributes': '*.txt text eol=crlf\n', 'blueprints/bp/notes.txt': 'one\ntwo\n' });
    const bundle = await bundleSnapshot(dir, PATHS, tempDir('agentdevel-snapshot-scratch-'));
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const cache = tempDir('agentdevel-snapshot-cache-');
    const folders = ['blueprints/bp', 'rubrics/task'];
    const splits = ['rubrics/task/train.jsonl'];
    const target = path.join(cache, 'converted');
    expect(await checkoutFromRemote({ url: dir, commit: head }, folders, splits, bundle.tree, path.join(cache, 'remote.git'), target)).toBe(true);
    expect(readFileSync(path.join(target, 'blueprints/bp/notes.txt'), 'utf8')).toBe('one\r\ntwo\r\n');
    // The fetched commit is kept under a ref: the next fetch says it has it, and gets only what changed.
    expect(spawnSync('git', ['--git-dir', path.join(cache, 'remote.git'), 'rev-parse', 'refs/agentdevel/fetched'], { encoding: 'utf8' }).stdout.trim()).toBe(head);
    expect(await checkoutFromRemote({ url: dir, commit: head }, folders, splits, 'b'.repeat(40), path.join(cache, 'remote.git'), path.join(cache, 'other'))).toBe(false);
    expect(existsSync(path.join(cache, 'other'))).toBe(false);
  });
});
