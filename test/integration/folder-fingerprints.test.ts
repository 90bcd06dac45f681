// A version's fingerprints (its blueprint's folder and its task's) are read in one listing of the
// checkout: each must be the folder's own, as if read alone. Real git, a real checkout.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitRepo } from '../../src/adapters/git/git.ts';
import { git, tempDir, writeFileIn } from '../helpers/workspace.ts';

describe('folder fingerprints read together', () => {
  it('give each folder what it gives alone, with nothing of a neighbour whose name it begins', async () => {
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
});
