// A candidate's intent comes from its commit message; a merge's own message rarely says why
// (GitHub's test merge "Merge <sha> into <sha>", which CI checks out as HEAD for a pull request),
// so the commits a merge brings in speak for it: a `Targets:` line in the pull request's own
// commit is not lost. Real git, a real merge.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitRepo } from '../../src/adapters/git/git.ts';
import { intentFromCommitMessage } from '../../src/domain/release-candidate.ts';
import { candidateMessage } from '../../src/pipeline/gate/submitted-candidate.ts';
import { git, tempDir } from '../helpers/workspace.ts';

function commitFile(dir: string, file: string, message: string): string {
  writeFileSync(path.join(dir, file), `${file} ${message}\n`);
  git(dir, 'add', file);
  git(dir, 'commit', '-qm', message);
  return git(dir, 'rev-parse', 'HEAD').trim();
}

describe('the message a candidate intent is read from', () => {
  it("reads a pull request's own commits through GitHub's test merge and a merged pull request", async () => {
    const dir = tempDir('agentdevel-merge-intent-');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.email', 'a@example.com');
    git(dir, 'config', 'user.name', 'A');
    commitFile(dir, 'base.txt', 'Start');
    git(dir, 'switch', '-q', '-c', 'fix');
    commitFile(dir, 'a.txt', 'Look the order up first\n\nTargets: wrong_order_id');
    const head = commitFile(dir, 'b.txt', 'Confirm before refunding');
    git(dir, 'switch', '-q', 'main');
    const base = commitFile(dir, 'c.txt', 'Meanwhile on main');
    const repo = await GitRepo.open(dir);

    // GitHub's test merge: its message names two commits and nothing else.
    git(dir, 'merge', '-q', '--no-ff', '-m', `Merge ${head} into ${base}`, 'fix');
    const testMerge = git(dir, 'rev-parse', 'HEAD').trim();
    expect(intentFromCommitMessage(await candidateMessage(repo, testMerge))).toEqual({ targets: ['wrong_order_id'], rationale: 'Confirm before refunding' });

    // A merged pull request keeps its own message as the rationale, and gains the targets.
    git(dir, 'reset', '-q', '--hard', base);
    git(dir, 'merge', '-q', '--no-ff', '-m', 'Merge pull request #12 from me/fix\n\nRefunds: look up, then confirm', 'fix');
    const merged = git(dir, 'rev-parse', 'HEAD').trim();
    const intent = intentFromCommitMessage(await candidateMessage(repo, merged));
    expect(intent?.targets).toEqual(['wrong_order_id']);
    expect(intent?.rationale).toMatch(/^Merge pull request #12 from me\/fix\. Refunds: look up, then confirm/);

    // A plain commit is read as it is.
    expect((await candidateMessage(repo, head)).trim()).toBe('Confirm before refunding');
  });
});
