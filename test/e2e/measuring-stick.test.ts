// A person's change that moves the measuring stick is never promoted without a word (issue 30,
// class 8). The test split is sealed: a branch that deletes it is refused before anything is
// written, unless --reseal-test asks for it, and then the release records the new seal. A branch
// that edits the rubric is gated, and every output names the grading each side was measured
// under. The workspace is `init --runtime command`'s deterministic calculator agent.
import { appendFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DecisionDocument } from '../../src/domain/decision.ts';
import { cli, git, lineState, tempDir } from '../helpers/workspace.ts';

const TEST_SPLIT = 'rubrics/arithmetic/test.jsonl';
const RUBRIC = 'rubrics/arithmetic/rubric.md';

let dir: string;

/** A branch off main with these edits, committed; the checkout goes back to main. */
function branch(name: string, message: string, change: () => void): void {
  git(dir, 'checkout', '-q', '-b', name, 'main');
  change();
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', message);
  git(dir, 'checkout', '-q', 'main');
}

beforeAll(() => {
  dir = path.join(tempDir('agentdevel-stick-'), 'ws');
  git(path.dirname(dir), 'init', '-q', '--initial-branch=main', dir);
  const init = cli(['init', '--runtime', 'command', '-C', dir]);
  expect(init.code, init.stderr).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'agentdevel workspace');
  // The line's test split is sealed by its one evaluation: a seal ref exists to be kept.
  const evaluated = cli(['evaluate-test', '-C', dir]);
  expect(evaluated.code, evaluated.stderr).toBe(0);
}, 120_000);

describe('the sealed test split', () => {
  it('a branch that deletes it is refused, naming the split and the flag, and the line, the tags and the seal are unchanged; with --reseal-test it is gated and the release records the new seal', () => {
    branch('drop-test', 'The test split is in the way', () => rmSync(path.join(dir, TEST_SPLIT)));
    const seals = git(dir, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/agentdevel/test/');
    expect(seals).toMatch(/^refs\/agentdevel\/test\/my-agent\/[0-9a-f]{40} [0-9a-f]{40}$/);
    const before = lineState(dir);

    for (const args of [['--promote'], []]) {
      const refused = cli(['gate', '--candidate', 'drop-test', ...args, '-C', dir]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/^error TEST_SPLIT_SEALED: --candidate: "drop-test" deletes \(or moves\) rubrics\/arithmetic\/test\.jsonl, the sealed test split; a change to it is gated only when asked for with --reseal-test$/m);
      expect(refused.stdout).toBe('');
    }
    expect(lineState(dir)).toBe(before);
    expect(git(dir, 'tag')).toBe('');

    const splitBlob = git(dir, 'rev-parse', `main:${TEST_SPLIT}`);
    const gated = cli(['gate', '--candidate', 'drop-test', '--promote', '--reseal-test', '-C', dir]);
    expect(gated.code, gated.stderr).toBe(0);
    expect(gated.stdout).toMatch(/^drop-test: promoted/m);
    expect(gated.stdout).toContain(`  the change deletes (or moves) the sealed test split ${TEST_SPLIT} (was ${splitBlob.slice(0, 10)}), gated because --reseal-test asked for it: the release records no test split as its seal`);
    expect(git(dir, 'tag')).toBe('my-agent/v1');
    // Recorded in git, with the release on the line: the split's seal before and after.
    const decision = JSON.parse(git(dir, 'show', 'my-agent/v1:releases/my-agent/v1/decision.json')) as DecisionDocument;
    expect(decision.change?.testSplit).toEqual({ path: TEST_SPLIT, before: splitBlob, after: null, resealed: true });
    // The earlier evaluation's seal is kept as it was: it sealed the split it ran on.
    expect(git(dir, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/agentdevel/test/')).toBe(seals);
  });
});

describe('a change to the rubric', () => {
  it('is gated, and the CLI, the summary and both reports name the rubric change with the grading each side was measured under', () => {
    branch('stricter-rubric', 'A stricter rubric', () => appendFileSync(path.join(dir, RUBRIC), '- shows its working in one line.\n'));
    const summary = path.join(path.dirname(dir), 'rubric-summary.md');
    const result = cli(['gate', '--candidate', 'stricter-rubric', '--summary', summary, '-C', dir]);
    expect(result.code, result.stderr).toBe(0);
    const line = /^ {2}the rubric or scorers changed in this candidate \(rubric\.md\): the release was graded under grading ([0-9a-f]{12}) \(my-agent\/v1, [0-9a-f]{10}\), the candidate brings grading ([0-9a-f]{12}) \(stricter-rubric \([0-9a-f]{10}\)\); this gate graded both sides under the candidate's grading \2, so its flips compare agents, not rubrics; pass rates recorded under \1 are not comparable with these$/m;
    const [, releaseGrading, candidateGrading] = line.exec(result.stdout) ?? [];
    expect(releaseGrading, result.stdout).toBeDefined();
    expect(candidateGrading).not.toBe(releaseGrading);

    const root = path.join(dir, '.agentdevel', 'reports');
    const folder = path.join(root, readdirSync(root).find((f) => f.startsWith('stricter-rubric-')) ?? 'missing');
    const named = `the rubric or scorers changed in this candidate (rubric.md): the release was graded under grading ${releaseGrading}`;
    // The markdown reads as the text does: nothing in it can start markup.
    expect(readFileSync(summary, 'utf8')).toContain(`- ${named}`);
    expect(readFileSync(path.join(folder, 'report.md'), 'utf8')).toContain(`- ${named}`);
    expect(readFileSync(path.join(folder, 'report.html'), 'utf8')).toContain(`<li>${named}`);
    const decision = JSON.parse(readFileSync(path.join(folder, 'decision.json'), 'utf8')) as DecisionDocument;
    expect(decision.change?.grading).toMatchObject({ files: ['rubric.md'], release: { digest: releaseGrading }, candidate: { digest: candidateGrading } });
  });
});

describe("the line's records", () => {
  it('a branch that edits a release document is refused, naming it, and nothing moves', () => {
    // The line holds a release's documents once something was promoted (the tests above promote).
    const runs = git(dir, 'ls-tree', '-r', '--name-only', 'main', 'releases/my-agent/').split('\n').find((f) => f.endsWith('/runs.json'));
    expect(runs, 'a runs.json on the line').toBeDefined();
    branch('forge-records', 'Tidy the records', () => appendFileSync(path.join(dir, runs as string), '\n'));
    const before = lineState(dir);
    const refused = cli(['gate', '--candidate', 'forge-records', '-C', dir]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`error RECORDS_EDITED: --candidate: "forge-records" edits the line's records (${runs}); only agentdevel's decisions write them`);
    expect(lineState(dir)).toBe(before);
  });
});
