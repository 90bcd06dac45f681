// A person's pull request is more than an agent: it adds cases, edits the config, writes a
// README beside the blueprint. `gate --candidate` gates it by kind of path (README, "In CI"):
// the task is what both sides run on, the config is the line's while the gate runs, the rest
// is listed as not gated. An RC a model wrote still may edit its blueprint only. The workspace
// is `init --runtime command`'s deterministic calculator agent, which cannot do powers.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/ports/clock.ts';
import { silentReporter } from '../../src/domain/ports/reporter.ts';
import { createMockEngine } from '../../src/adapters/engines/mock/index.ts';
import { blueprintCheckRunner } from '../../src/adapters/process/blueprint-checks.ts';
import { runSandboxed } from '../../src/adapters/process/sandbox.ts';
import { runScorerScript } from '../../src/adapters/process/scorer-scripts.ts';
import { wordDiff } from '../../src/adapters/text-diff/word-diff.ts';
import { renderReportTemplate } from '../../src/adapters/template/report-templates.ts';
import { gateCandidate } from '../../src/pipeline/gate/submitted-candidate.ts';
import { openWorkspace } from '../../src/app/workspace.ts';
import type { DecisionDocument } from '../../src/domain/decision.ts';
import { cli, git, lineState, tempDir } from '../helpers/workspace.ts';
import { localExecutor } from '../../src/adapters/runtimes/local-executor.ts';

const TRAIN = 'rubrics/arithmetic/train.jsonl';
const AGENT = 'blueprints/my-agent/agent.mjs';
const POWERS = '{"id": "pow-1", "question": "What is 2 ^ 5?", "expected": {"answer": 32}}';
const SUM = '{"id": "add-3", "question": "What is 1 + 1?", "expected": {"answer": 2}}';

let dir: string;

function edit(file: string, change: (text: string) => string): void {
  const full = path.join(dir, file);
  writeFileSync(full, change(existsSync(full) ? readFileSync(full, 'utf8') : ''));
}

/** A branch off main with these edits, committed; the checkout goes back to main. */
function branch(name: string, message: string, change: () => void): void {
  git(dir, 'checkout', '-q', '-b', name, 'main');
  change();
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', message);
  git(dir, 'checkout', '-q', 'main');
}

const setGate = (gate: Record<string, unknown>) =>
  edit('agentdevel.config.json', (text) => {
    const config = JSON.parse(text) as { gate?: Record<string, unknown> };
    return `${JSON.stringify({ ...config, gate: { ...config.gate, ...gate } }, null, 2)}\n`;
  });

/** The dry gate's report folder of a candidate (one per candidate and commit). */
function reportFolder(name: string): string {
  const root = path.join(dir, '.agentdevel', 'reports');
  const found = readdirSync(root).find((f) => f.startsWith(`${name}-`));
  if (!found) throw new Error(`no report folder for ${name}`);
  return path.join(root, found);
}

const decisionOf = (name: string) => JSON.parse(readFileSync(path.join(reportFolder(name), 'decision.json'), 'utf8')) as DecisionDocument;

beforeAll(() => {
  dir = path.join(tempDir('agentdevel-human-'), 'ws');
  git(path.dirname(dir), 'init', '-q', '--initial-branch=main', dir);
  const init = cli(['init', '--runtime', 'command', '-C', dir]);
  expect(init.code, init.stderr).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'agentdevel workspace');
}, 120_000);

describe("a person's change beyond the blueprint", () => {
  it('two added train cases and a README, no blueprint edit: accepted, the release measured on the candidate\'s task, its result on the added cases shown, the README not gated', () => {
    branch('more-cases', 'Two more cases', () => {
      edit(TRAIN, (text) => `${text}${POWERS}\n${SUM}\n`);
      edit('README.md', () => '# The calculator agent\n');
    });
    const before = lineState(dir);
    const summary = path.join(path.dirname(dir), 'more-cases-summary.md');
    const result = cli(['gate', '--candidate', 'more-cases', '--summary', summary, '-C', dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^more-cases: accepted \(dry gate: nothing recorded\)$/m);
    expect(result.stdout).toMatch(/^ {2}baseline screen of main@[0-9a-f]{10} \(initial\) on more-cases's task: the release's 3 records are taken now, once, at its first gate \(24 case-trials\): later gates against this release reuse them$/m);
    expect(result.stdout).toMatch(/^ {2}no blueprint change: the release measured on the candidate's task$/m);
    expect(result.stdout).toMatch(/^ {2}task edits \(rubrics\/arithmetic\/\): cases added pow-1, add-3; removed none; edited none$/m);
    expect(result.stdout).toMatch(/^ {2}the release on the added and edited cases: pass rate 50\.0% \(3 of 6 case-trials\); failing: pow-1 \(0\/3\)$/m);
    expect(result.stdout).toMatch(/^ {2}not gated: README\.md$/m);
    // The same words in the PR summary and the reports; the decision records them.
    expect(readFileSync(summary, 'utf8')).toMatch(/\*\*Beyond the blueprint\*\*\n\n- no blueprint change: the release measured on the candidate's task\n/);
    expect(readFileSync(summary, 'utf8')).toContain('- not gated: README.md');
    expect(readFileSync(path.join(reportFolder('more-cases'), 'report.html'), 'utf8')).toContain('<li>not gated: README.md</li>');
    const { change, gate } = decisionOf('more-cases');
    expect(gate.verdict).toBe('accept');
    expect(change).toMatchObject({
      blueprint: false,
      task: { folder: 'rubrics/arithmetic/', paths: [TRAIN], cases: { added: ['pow-1', 'add-3'], removed: [], edited: [] }, releaseOnCases: [{ caseId: 'pow-1', passes: 0, graded: 3 }, { caseId: 'add-3', passes: 3, graded: 3 }] },
      config: null,
      notGated: ['README.md'],
    });
    expect(lineState(dir)).toBe(before);
  });

  it('a blueprint edit with a case only the new blueprint passes: the flip is a fix, both sides measured on the candidate\'s task', () => {
    branch('powers', 'Support powers', () => {
      edit(AGENT, (text) => text.replace('([-+*/])', '([-+*/^])').replace("'/': (x, y) => x / y }", "'/': (x, y) => x / y, '^': (x, y) => x ** y }"));
      edit(TRAIN, (text) => `${text}${POWERS}\n`);
    });
    const result = cli(['gate', '--candidate', 'powers', '--json', '-C', dir]);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as { decision: string; f2p: string[]; baselineScreen: string; tests: Array<{ caseId: string; screening: { baseline: { graded: number; passes: number } }; confirmation: { baseline: { graded: number; passes: number } } | null }> };
    expect(json.decision).toBe('accept');
    expect(json.f2p).toEqual(['pow-1']);
    // The release's blueprint ran before on another task (the gate above): the screen says why it ran again.
    expect(json.baselineScreen).toMatch(/on powers's task: 3 records, 3 run now \(21 case-trials\); run now because the recorded run of this version \(run [^)]+\) differs: the task \(rubrics\/arithmetic: its rubric, cases, scorers or environment\) changed/);
    // The release's side was screened and confirmed on pow-1: it ran on the candidate's task.
    const test = json.tests.find((t) => t.caseId === 'pow-1');
    expect(test?.screening.baseline).toEqual({ passes: 0, graded: 3 });
    expect(test?.confirmation?.baseline.graded).toBeGreaterThan(0);
    expect(test?.confirmation?.baseline.passes).toBe(0);

    const decision = decisionOf('powers');
    const measured = decision.change?.task?.baseline;
    expect(measured?.label).toMatch(/^main@[0-9a-f]{10} \(initial\) on powers's task$/);
    // That version: the release's blueprint in the candidate's tree, on top of the release, on no branch.
    const commit = measured?.commit as string;
    expect(git(dir, 'rev-parse', `${commit}^`)).toBe(git(dir, 'rev-parse', 'main'));
    expect(git(dir, 'rev-parse', `${commit}:blueprints/my-agent`)).toBe(git(dir, 'rev-parse', 'main:blueprints/my-agent'));
    expect(git(dir, 'rev-parse', `${commit}:${TRAIN}`)).toBe(git(dir, 'rev-parse', `powers:${TRAIN}`));
    expect(git(dir, 'branch', '--all', '--contains', commit)).toBe('');
    // Its screen is in the store: the release's record of the new case, failing.
    const shown = cli(['show', 'pow-1', '--run', decision.baseline.runId, '--json', '-C', dir]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ caseId: 'pow-1', trials: [{ pass: false }] });
  });

  it('a change to the gate rule in the checked-out pull request is gated under the line\'s rule, and the config change is listed', () => {
    // Tolerates ten regressions at alpha 0.99, and breaks multiplication.
    branch('lenient', 'A lenient gate', () => {
      setGate({ alpha: 0.99, maxSignificantRegressions: 10 });
      edit(AGENT, (text) => text.replace("'*': (x, y) => x * y", "'*': (x, y) => x * y + 1"));
    });
    // As CI checks it out: the pull request is the working tree, its config the checkout's.
    git(dir, 'checkout', '-q', 'lenient');
    try {
      const result = cli(['gate', '--candidate', 'HEAD', '--json', '-C', dir]);
      expect(result.code, result.stderr).toBe(1);
      const json = JSON.parse(result.stdout) as { decision: string; p2f: string[]; procedure: { alpha: number }; change: { config: { keys: string[] } } };
      expect(json.decision).toBe('reject');
      expect(json.p2f.sort()).toEqual(['mul-1', 'mul-2']);
      expect(json.procedure.alpha).toBe(0.05);
      expect(json.change.config).toEqual({ file: 'agentdevel.config.json', keys: ['gate'] });
      const report = readFileSync(path.join(reportFolder('HEAD'), 'report.md'), 'utf8');
      expect(report).toContain("- agentdevel.config.json changed (keys: gate); this gate ran under the line's config; the change reaches the line when merged");
    } finally {
      git(dir, 'checkout', '-q', 'main');
    }
  });

  it('a config the candidate cannot load is bad input naming the file and the key (exit 2), and nothing is run or written', () => {
    branch('bad-alpha', 'alpha 1', () => setGate({ alpha: 1 }));
    const before = lineState(dir);
    const reports = readdirSync(path.join(dir, '.agentdevel', 'reports'));
    const result = cli(['gate', '--candidate', 'bad-alpha', '-C', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error CONFIG_INVALID: bad-alpha:agentdevel\.config\.json: gate\.alpha: /m);
    expect(result.stdout).toBe('');
    expect(readdirSync(path.join(dir, '.agentdevel', 'reports'))).toEqual(reports);
    expect(lineState(dir)).toBe(before);
  });

  it('an RC a model wrote that edits the task is still rejected before it runs', async () => {
    branch('model-edits-task', 'rc: an easier case', () => edit(TRAIN, (text) => text.replace('"answer": 2.75', '"answer": 2.7')));
    const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock: systemClock });
    try {
      const context = { workspace, model: createMockEngine(), reporter: silentReporter, redact: (t: string) => t, clock: systemClock, parentEnv: {}, checks: blueprintCheckRunner({}), sandbox: runSandboxed, scorerScripts: runScorerScript, localExecutor, textDiff: wordDiff, templates: renderReportTemplate };
      const outcome = await gateCandidate(context, { ref: 'model-edits-task', promote: false, targets: [], reportDir: null, allowBehind: false, intent: null, authors: ['writer'] });
      expect(outcome.ranCandidate).toBe(false);
      expect(outcome.decision.verdict).toBe('reject');
      expect(outcome.decision.reasons[0]).toMatch(/^edits outside blueprints\/my-agent\/ \(rubrics\/arithmetic\/train\.jsonl\): an RC may change its blueprint only/);
      expect(outcome.evidence.change ?? null).toBeNull();
    } finally {
      await workspace.close();
    }
  });

  it("a working tree whose config is not the line's: the gate runs under the line's and says which keys differ", () => {
    edit('agentdevel.config.json', (text) => text.replace('"trials": 1', '"trials": 2'));
    try {
      const result = cli(['gate', '--candidate', 'powers', '--json', '-C', dir]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/the checkout's agentdevel\.config\.json differs from the line's \(at main@[0-9a-f]{10} \(initial\)\) in trials; the gate runs under the line's/);
      const json = JSON.parse(result.stdout) as { tests: Array<{ caseId: string; screening: { candidate: { graded: number } } }> };
      expect(json.tests.find((t) => t.caseId === 'pow-1')?.screening.candidate.graded).toBe(1);
    } finally {
      git(dir, 'checkout', '-q', '--', 'agentdevel.config.json');
    }
  });

  it('held for approval, a change with task edits is approved exactly as gated; one whose decision no longer records its README is refused', () => {
    setGate({ layers: [{ layer: 'flips' }, { layer: 'approval' }] });
    git(dir, 'commit', '-qam', 'a person approves releases');
    branch('reviewed', 'Support powers, with a case and a README', () => {
      edit(AGENT, (text) => text.replace('([-+*/])', '([-+*/^])').replace("'/': (x, y) => x / y }", "'/': (x, y) => x / y, '^': (x, y) => x ** y }"));
      edit(TRAIN, (text) => `${text}${POWERS}\n`);
      edit('README.md', () => '# The calculator agent, with powers\n');
    });
    const gated = cli(['gate', '--candidate', 'reviewed', '--promote', '--json', '-C', dir]);
    expect(gated.code, gated.stderr).toBe(0);
    expect(JSON.parse(gated.stdout)).toMatchObject({ outcome: 'pending', f2p: ['pow-1'], change: { blueprint: true, notGated: ['README.md'] } });
    const pendingRef = 'refs/agentdevel/pending/my-agent/iter-001';
    const auditRef = 'refs/agentdevel/rc/my-agent/iter-001';
    const pending = git(dir, 'rev-parse', pendingRef);
    const candidate = git(dir, 'rev-parse', `${pending}^`);

    // The same report on top of the same candidate, its decision edited to leave the README out of the change.
    const folder = 'releases/my-agent/pending/iter-001';
    const scratch = path.join(path.dirname(dir), 'scratch');
    git(dir, 'worktree', 'add', '-q', '--detach', scratch, candidate);
    git(scratch, 'checkout', pending, '--', folder);
    const file = path.join(scratch, folder, 'decision.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"notGated": \[\s*"README\.md"\s*\]/, '"notGated": []'));
    git(scratch, 'commit', '-qam', 'agentdevel: hold release candidate (iteration 1) for approval as my-agent/v1');
    const forged = git(scratch, 'rev-parse', 'HEAD');
    git(dir, 'worktree', 'remove', '--force', scratch);
    git(dir, 'update-ref', pendingRef, forged, pending);
    git(dir, 'update-ref', auditRef, forged, pending);
    const refused = cli(['approve', '1', '--by', 'Reviewer', '-C', dir]);
    git(dir, 'update-ref', pendingRef, pending, forged);
    git(dir, 'update-ref', auditRef, pending, forged);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error PENDING_NOT_GATED: /m);
    expect(refused.stderr).toMatch(/the candidate changes README\.md, outside blueprints\/my-agent\/, which its decision does not record as gated/);
    expect(git(dir, 'tag')).toBe('');

    const approved = cli(['approve', '1', '--by', 'Reviewer', '-C', dir]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(git(dir, 'rev-parse', 'main^')).toBe(pending);
    expect(git(dir, 'tag')).toBe('my-agent/v1');
    expect(git(dir, 'show', `main:${TRAIN}`)).toContain(POWERS);
  });
});
