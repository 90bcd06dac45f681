// A human pull request merged into the line without a gate, recorded as a release the way the
// README's "record merges" workflow does it: the Action's own steps (read from action.yml) run in
// a CI clone of a bare remote, gate the line's tip against the newest release it contains,
// promote it, and push the line, the tag and refs/agentdevel/* back.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cli, decisionLog, git, repoRoot, tempDir } from '../helpers/workspace.ts';

interface ActionStep {
  readonly id?: string;
  readonly name?: string;
  readonly run?: string;
}
const action = parse(readFileSync(path.join(repoRoot, 'action.yml'), 'utf8')) as { runs: { steps: ActionStep[] } };
const stepScript = (match: (step: ActionStep) => boolean): string => {
  const found = action.runs.steps.find(match)?.run;
  if (!found) throw new Error('action.yml has no such step');
  return found;
};
const fetchStep = stepScript((s) => s.run?.includes('sync --fetch-only') ?? false);
const commandStep = stepScript((s) => s.id === 'agentdevel');

/** Runs the Action's fetch and command steps in `dir` as GitHub's runner would (bash -eo pipefail), with its inputs as environment. */
function runAction(dir: string, inputs: { command: string; baseline?: string }): { code: string; stdout: string; stderr: string } {
  const output = path.join(tempDir('agentdevel-action-'), 'github-output');
  writeFileSync(output, '');
  const env = {
    ...process.env,
    CI: 'true',
    GITHUB_ACTION_PATH: repoRoot,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: '',
    AGENTDEVEL_COMMAND: inputs.command,
    AGENTDEVEL_CANDIDATE: 'HEAD',
    AGENTDEVEL_BASELINE: inputs.baseline ?? '',
    AGENTDEVEL_ARGS: '',
    AGENTDEVEL_REPORT_DIR: 'agentdevel-report',
    ANTHROPIC_API_KEY: '',
  };
  let stdout = '';
  let stderr = '';
  for (const script of [fetchStep, commandStep]) {
    const step = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: dir, env, encoding: 'utf8', timeout: 300_000 });
    stdout += step.stdout;
    stderr += step.stderr;
    if (step.status !== 0) return { code: `step exited ${step.status}`, stdout, stderr };
  }
  return { code: /exit-code=(\d+)/.exec(readFileSync(output, 'utf8'))?.[1] ?? 'none', stdout, stderr };
}

let remote: string;
let dev: string;

/** A change to the agent on a branch of the developer's clone, merged into main as GitHub merges a pull request, and pushed. */
function mergePullRequest(branch: string, number: number, title: string, change: (agent: string) => string): string {
  return mergeFiles(branch, number, title, { 'blueprints/my-agent/agent.mjs': change });
}

/** A change to any files (a missing file reads as empty), merged and pushed the same way. */
function mergeFiles(branch: string, number: number, title: string, changes: Record<string, (text: string) => string>): string {
  git(dev, 'pull', '-q', '--ff-only', 'origin', 'main');
  git(dev, 'checkout', '-q', '-b', branch);
  for (const [file, change] of Object.entries(changes)) {
    const full = path.join(dev, file);
    writeFileSync(full, change(existsSync(full) ? readFileSync(full, 'utf8') : ''));
  }
  git(dev, 'add', '-A');
  git(dev, 'commit', '-qm', title);
  git(dev, 'checkout', '-q', 'main');
  git(dev, 'merge', '-q', '--no-ff', branch, '-m', `Merge pull request #${number} from dev/${branch}\n\n${title}`);
  git(dev, 'push', '-q', 'origin', 'main');
  return git(dev, 'rev-parse', 'main');
}

function ciClone(name: string): string {
  const ci = path.join(tempDir('agentdevel-ci-'), name);
  git(path.dirname(ci), 'clone', '-q', '--branch', 'main', remote, ci);
  return ci;
}

const remoteRefs = (): string => git(remote, 'for-each-ref', '--format=%(refname) %(objectname)');

beforeAll(() => {
  const root = tempDir('agentdevel-merged-');
  remote = path.join(root, 'origin.git');
  git(root, 'init', '-q', '--bare', '--initial-branch=main', remote);
  dev = path.join(root, 'dev');
  mkdirSync(dev);
  git(dev, 'init', '-q', '--initial-branch=main');
  const init = cli(['init', '--runtime', 'command', '-C', dev]);
  expect(init.code, init.stderr).toBe(0);
  // A case the scaffold's agent cannot answer yet: powers.
  const train = path.join(dev, 'rubrics/arithmetic/train.jsonl');
  writeFileSync(train, `${readFileSync(train, 'utf8')}{"id": "pow-1", "question": "What is 2 ^ 5?", "expected": {"answer": 32}}\n`);
  git(dev, 'add', '-A');
  git(dev, 'commit', '-qm', 'agentdevel workspace');
  git(dev, 'remote', 'add', 'origin', remote);
  git(dev, 'push', '-q', 'origin', 'main');
}, 120_000);

describe('a pull request merged without a gate, recorded by the Action (command: record-merge)', () => {
  it('before any release: gates the merge against the line before it, promotes it, and pushes line, tag and audit ref', () => {
    const before = git(dev, 'rev-parse', 'main');
    const merged = mergePullRequest('powers', 7, 'Support powers', (agent) =>
      agent.replace('([-+*/])', '([-+*/^])').replace("'/': (x, y) => x / y }", "'/': (x, y) => x / y, '^': (x, y) => x ** y }"),
    );
    const ci = ciClone('first');
    const result = runAction(ci, { command: 'record-merge' });
    expect(result.code, result.stderr).toBe('0');
    expect(result.stdout).toMatch(/^HEAD: promoted as my-agent\/v1$/m);
    expect(result.stdout).toMatch(new RegExp(`baseline screen of main@${before.slice(0, 10)}`));
    // The intent is the merge commit's message, as GitHub writes it.
    expect(result.stdout).toMatch(/^ {2}intent: Merge pull request #7 from dev\/powers\. Support powers$/m);
    expect(result.stdout).toMatch(/fixed \(F→P\):\n {4}pow-1/);

    // On the remote: the line moved to the release commit, whose parent is the merge; the tag and the audit ref arrived with it.
    const release = git(remote, 'rev-parse', 'main');
    expect(git(remote, 'rev-parse', `${release}^`)).toBe(merged);
    expect(git(remote, 'rev-parse', 'my-agent/v1^{commit}')).toBe(release);
    expect(git(remote, 'cat-file', '-t', 'my-agent/v1')).toBe('tag');
    expect(git(remote, 'cat-file', '-p', 'my-agent/v1')).toMatch(/^Intent: Merge pull request #7 from dev\/powers\. Support powers$/m);
    expect(remoteRefs()).toMatch(/^refs\/agentdevel\/rc\/my-agent\/iter-001 /m);
    const decision = JSON.parse(git(remote, 'show', 'my-agent/v1:releases/my-agent/v1/decision.json')) as { baseline: { commit: string }; candidate: { commit: string }; gate: { f2p: string[] } };
    expect(decision).toMatchObject({ baseline: { commit: before }, candidate: { commit: merged }, gate: { f2p: ['pow-1'] } });
    expect(readFileSync(path.join(ci, 'agentdevel-report', 'summary.md'), 'utf8')).toMatch(/^### agentdevel gate: ✅ `main` \(`[0-9a-f]{10}`\) promoted as my-agent\/v1\n/);
  });

  it('after a release: gates the next merge against it (the newest release the line holds)', () => {
    mergePullRequest('shorter', 8, 'Shorter replies', (agent) => agent.replace('`The answer is ${answer}.`', '`${answer}`'));
    const ci = ciClone('second');
    const result = runAction(ci, { command: 'record-merge' });
    expect(result.code, result.stderr).toBe('0');
    expect(result.stdout).toMatch(/^HEAD: promoted as my-agent\/v2$/m);
    expect(result.stdout).toMatch(/baseline screen of my-agent\/v1:/);
    expect(git(remote, 'rev-parse', 'my-agent/v2^{commit}')).toBe(git(remote, 'rev-parse', 'main'));
    // A fresh clone reads both decisions back from the remote.
    const clone = ciClone('reader');
    expect(cli(['sync', '--fetch-only', '-C', clone]).code).toBe(0);
    expect(decisionLog(clone).map((entry) => entry.tag)).toEqual(['my-agent/v1', 'my-agent/v2']);
  });

  it('when the line moved on the remote while the gate ran, pushes nothing: no tag without its line (exit 3)', () => {
    mergePullRequest('terse', 9, 'Terse replies', (agent) => `${agent}// terse\n`);
    const ci = ciClone('raced');
    // Another pull request lands before this job pushes.
    mergePullRequest('later', 10, 'A later change', (agent) => `${agent}// a later change\n`);
    const refsBefore = remoteRefs();
    const result = runAction(ci, { command: 'record-merge' });
    expect(result.code).toBe('3');
    expect(result.stdout).toMatch(/^HEAD: promoted as my-agent\/v3$/m);
    expect(result.stderr).toMatch(/GIT_FAILED: git push origin failed/);
    expect(remoteRefs()).toBe(refsBefore);
  });

  it('a merge that adds cases and a README: gated on its own task, the README listed as not gated, promoted and pushed', () => {
    // On top of the two merges the raced run could not push: one more pull request, cases and a README only.
    const merged = mergeFiles('more-cases', 11, 'Two more cases, and a README', {
      'rubrics/arithmetic/train.jsonl': (text) => `${text}{"id": "pow-2", "question": "What is 3 ^ 2?", "expected": {"answer": 9}}\n{"id": "mod-1", "question": "What is 10 % 3?", "expected": {"answer": 1}}\n`,
      'README.md': () => '# The calculator agent\n',
    });
    const ci = ciClone('cases');
    const result = runAction(ci, { command: 'record-merge' });
    expect(result.code, result.stderr).toBe('0');
    expect(result.stdout).toMatch(/^HEAD: promoted as my-agent\/v3$/m);
    expect(result.stdout).toMatch(/^ {2}baseline screen of my-agent\/v2 on HEAD's task: 3 records, 3 run now \(\d+ case-trials\); run now because the recorded run of this version \(run [^)]+\) differs: the task \(rubrics\/arithmetic: its rubric, cases, scorers or environment\) changed$/m);
    expect(result.stdout).toMatch(/^ {2}task edits \(rubrics\/arithmetic\/\): cases added pow-2, mod-1; removed none; edited none$/m);
    expect(result.stdout).toMatch(/^ {2}the release on the added and edited cases: pass rate 50\.0% \(3 of 6 case-trials\); failing: mod-1 \(0\/3\)$/m);
    expect(result.stdout).toMatch(/^ {2}not gated: README\.md$/m);
    // Pushed: the line is the release commit on top of the merge, its tag and decision beside it.
    expect(git(remote, 'rev-parse', 'main^')).toBe(merged);
    expect(git(remote, 'rev-parse', 'my-agent/v3^{commit}')).toBe(git(remote, 'rev-parse', 'main'));
    const decision = JSON.parse(git(remote, 'show', 'my-agent/v3:releases/my-agent/v3/decision.json')) as { change: { task: { cases: { added: string[] } }; notGated: string[] } };
    expect(decision.change.task.cases.added).toEqual(['pow-2', 'mod-1']);
    expect(decision.change.notGated).toEqual(['README.md']);
  });

  it('a release already recorded is not gated again, and a baseline off the candidate is refused naming it (exit 2)', () => {
    const ci = ciClone('again');
    git(ci, 'fetch', '-q', 'origin', 'refs/tags/*:refs/tags/*');
    git(ci, 'reset', '-q', '--hard', 'my-agent/v2^{commit}');
    const again = cli(['gate', '--candidate', 'HEAD', '--promote', '-C', ci]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--candidate: "HEAD" is release my-agent\/v2 already; there is nothing to gate/);
    // The pull request v2 released, against a change that came after it.
    const offLine = cli(['gate', '--candidate', 'my-agent/v2^', '--baseline', 'origin/main', '-C', ci]);
    expect(offLine.code).toBe(2);
    expect(offLine.stderr).toMatch(/--baseline: "origin\/main" is not an ancestor of --candidate "my-agent\/v2\^"/);
  });
});
