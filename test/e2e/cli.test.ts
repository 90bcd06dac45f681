import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { Store } from '../../src/adapters/store/store.ts';
import { countingGit } from '../helpers/git-spawns.ts';
import { cli, decisionLog, exampleWorkspace, git, lineState, tempDir } from '../helpers/workspace.ts';

const clock = { now: () => new Date() };

/** Runs recorded in this workspace (not those a fresh clone reads from git). */
function runCount(dir: string): number {
  const store = Store.open(dir, clock);
  try {
    return store.runCount('local');
  } finally {
    store.close();
  }
}

const logLines = decisionLog;

let demo: string;
let demoResult: ReturnType<typeof cli>;

beforeAll(() => {
  demo = path.join(tempDir('agentdevel-e2e-'), 'demo');
  demoResult = cli(['demo', '--dir', demo], { env: { ANTHROPIC_API_KEY: '' } });
}, 120_000);

describe('agentdevel demo', () => {
  it('runs the whole loop offline and ends with its stop reason', () => {
    expect(demoResult.stderr).not.toMatch(/internal error/);
    expect(demoResult.code).toBe(0);
    expect(demoResult.stdout.trim().split('\n').at(-1)).toMatch(/^stop reason: .+/);
    expect(demoResult.stdout).toMatch(/simulated results: the mock engine/);
  });

  it("points at each iteration's diagnosis report: in git where its decision committed it, else in agentdevel's state folder", () => {
    const iterations = [...demoResult.stdout.matchAll(/^iteration \d+: /gm)].length;
    const pointers = [...demoResult.stdout.matchAll(/^ {2}diagnosis: [^\n]*; report: (?:git show (\S+):(\S+)|(\S+) \(not committed[^\n]*)$/gm)];
    expect(iterations).toBeGreaterThan(0);
    expect(pointers).toHaveLength(iterations);
    for (const [, ref, inGit, inState] of pointers) {
      const text = ref ? git(demo, 'show', `${ref}:${inGit}`) : readFileSync(path.join(demo, inState as string), 'utf8');
      expect(JSON.parse(text)).toMatchObject({ summary: expect.any(String), dominantSymptoms: expect.any(Array) });
    }
    expect(pointers.some(([, ref]) => ref?.startsWith('refs/agentdevel/rc/'))).toBe(true);
    expect(pointers.some(([, ref]) => ref?.startsWith('support-agent/v'))).toBe(true);
  });

  it('leaves annotated release tags on the line', () => {
    const tags = git(demo, 'tag', '--list', 'support-agent/v*').split('\n').filter(Boolean);
    expect(tags.length).toBeGreaterThanOrEqual(1);
    for (const tag of tags) {
      expect(git(demo, 'cat-file', '-t', tag)).toBe('tag');
      expect(git(demo, 'merge-base', '--is-ancestor', tag, 'main')).toBe('');
    }
    expect(git(demo, 'status', '--porcelain')).toBe('');
  });

  it('logs one JSON object per RC: promoted ones with fixes and no regressions, rejected ones with regressions', () => {
    const entries = logLines(demo);
    for (const entry of entries) {
      expect(Object.keys(entry)).toEqual(expect.arrayContaining(['rc', 'decision', 'f2p', 'p2f', 'tag']));
      expect(['promoted', 'rejected']).toContain(entry.decision);
    }
    expect(entries.some((e) => e.decision === 'promoted' && (e.f2p as number) > 0 && e.p2f === 0 && typeof e.tag === 'string')).toBe(true);
    expect(entries.some((e) => e.decision === 'rejected' && (e.p2f as number) > 0 && e.tag === null)).toBe(true);
  });

  it('keeps its log in git: it survives deleting the database', () => {
    const before = logLines(demo);
    const copy = path.join(tempDir(), 'clone');
    git(path.dirname(copy), 'clone', '-q', demo, copy);
    git(copy, 'fetch', '-q', 'origin', 'refs/agentdevel/*:refs/agentdevel/*');
    expect(existsSync(path.join(copy, '.agentdevel', 'state.db'))).toBe(false);
    expect(logLines(copy).map((e) => [e.rc, e.decision, e.f2p, e.p2f, e.tag])).toEqual(before.map((e) => [e.rc, e.decision, e.f2p, e.p2f, e.tag]));
  });

  it('never runs the same blueprint version twice on the same cases and trials', () => {
    const sql = openSql(path.join(demo, '.agentdevel', 'state.db'));
    try {
      // A screen (a release's three records, a candidate's run) is taken once per version and reused;
      // only confirmation trials are drawn afresh, beside the other version's, every time.
      expect(sql.all(`SELECT cache_key, COUNT(*) AS n FROM runs WHERE purpose != 'confirm' GROUP BY cache_key HAVING n > 1`)).toEqual([]);
      const releases = sql.all(`SELECT DISTINCT blueprint_tree FROM runs WHERE split = 'train' AND purpose = 'baseline'`).length;
      const candidates = logLines(demo).length;
      expect(Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE split = 'train' AND purpose != 'confirm'`)?.n)).toBeLessThanOrEqual(3 * releases + candidates);
    } finally {
      sql.close();
    }
  });

  it('commits the diagnosis script and report with each release', () => {
    const tag = git(demo, 'tag', '--list', 'support-agent/v1');
    const files = git(demo, 'show', '--name-only', '--format=', tag).split('\n');
    expect(files.some((f) => /^diagnostics\/support-agent\/iter-\d{3}\/diagnosis\.mjs$/.test(f))).toBe(true);
    expect(files.some((f) => /^releases\/support-agent\/v1\/report\.md$/.test(f))).toBe(true);
  });
});

describe('read-only commands', () => {
  it('start as many git processes on a line of four releases as on a line of one, and few', () => {
    // Two copies of the demo: as it is, and cut back to its first release (later tags, RCs and seals gone).
    const full = path.join(tempDir('agentdevel-spawns-'), 'full');
    cpSync(demo, full, { recursive: true });
    const cut = path.join(tempDir('agentdevel-spawns-'), 'cut');
    cpSync(demo, cut, { recursive: true });
    const tags = git(cut, 'tag', '--list', 'support-agent/v*').split('\n').filter(Boolean);
    const first = decisionLog(cut).find((e) => e.tag === 'support-agent/v1');
    const firstIteration = Number(/iter-(\d+)$/.exec(String(first?.rc))?.[1]);
    expect(tags.length).toBeGreaterThanOrEqual(3);
    git(cut, 'reset', '-q', '--hard', 'support-agent/v1');
    for (const tag of tags.filter((t) => t !== 'support-agent/v1')) git(cut, 'tag', '-d', tag);
    for (const ref of git(cut, 'for-each-ref', '--format=%(refname)', 'refs/agentdevel/').split('\n').filter(Boolean)) {
      const iteration = /\/iter-(\d+)$/.exec(ref)?.[1];
      if ((iteration !== undefined && Number(iteration) > firstIteration) || ref.startsWith('refs/agentdevel/test/')) git(cut, 'update-ref', '-d', ref);
    }

    const counter = countingGit();
    const spawns = (dir: string, args: string[]) => {
      counter.take();
      const result = cli([...args, '-C', dir], { env: { PATH: counter.path } });
      expect(result.code, result.stderr).toBe(0);
      return counter.take();
    };
    const commands: Array<[string[], number]> = [
      [['log'], 4],
      [['show', 'train-007'], 4],
      [['report', '--out', path.join(tempDir('agentdevel-reports-'), 'out')], 6],
    ];
    for (const [args, most] of commands) {
      const many = spawns(full, args);
      const one = spawns(cut, args);
      expect([args[0], many.length]).toEqual([args[0], one.length]);
      expect(many.length, `${args[0]}: ${many.join('; ')}`).toBeLessThanOrEqual(most);
    }
    expect(spawns(full, ['--help'])).toEqual([]);
  });
});

describe('agentdevel prompts', () => {
  it('prints the synthesizer request of a fresh clone from git alone, calling no model and recording no run', () => {
    const copy = path.join(tempDir(), 'clone');
    git(path.dirname(copy), 'clone', '-q', demo, copy);
    git(copy, 'fetch', '-q', 'origin', 'refs/agentdevel/*:refs/agentdevel/*');
    const result = cli(['prompts', '--role', 'synthesizer', '-C', copy], { env: { ANTHROPIC_API_KEY: '' } });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    const text = result.stdout;
    expect(text).toMatch(/^# synthesizer request: model mock, streamed/);
    expect(text).toContain(`Today's date: ${new Date().toISOString().slice(0, 10)}.`);
    expect(text).toContain(`Runtime: Node.js ${process.version}`);
    // The task's rules and API, and how partials are named.
    expect(text).toMatch(/<rubric>\nThe task's rules[\s\S]*within 30 days of delivery/);
    expect(text).toContain('- ctx.env.returnItems(orderId: string, itemIds: string[]): { orderId: string; status: string; refund: number }');
    expect(text).toMatch(/export interface Order \{[\s\S]*deliveredOn: string \| null;/);
    expect(text).toContain('{{> partials/confirmation}}');
    // The tool-loop runtime's keys, derived from its manifest schema.
    expect(text).toContain('blueprints/support-agent/blueprint.json keeps "runtime": "tool-loop"');
    expect(text).toMatch(/- "maxSteps": Model turns allowed per case/);
    expect(text).toContain('the tool wrappers bundle and import');
    // Earlier RCs with the cases they fixed and broke, and the symptoms those cases showed.
    const history = JSON.parse(text.slice(text.indexOf('<earlier_release_candidates>') + 29, text.indexOf('</earlier_release_candidates>'))) as Array<{
      decision: string;
      fixed: Record<string, string>;
      broken: Record<string, string>;
    }>;
    expect(history.length).toBe(logLines(demo).length);
    const rejected = history.find((h) => h.decision === 'rejected' && Object.keys(h.broken).length > 0);
    expect(Object.keys(rejected?.broken ?? {})[0]).toMatch(/^train-\d{3}$/);
    expect(Object.values(history.find((h) => h.decision === 'promoted')?.fixed ?? {})).toContain('missing_required_step');
    // The targets' enum is the vocabulary: it holds the symptom the last RC targeted.
    const lastTarget = (logLines(demo).at(-1)?.targets as string[] | undefined)?.[0] ?? 'none';
    expect(text).toMatch(new RegExp(`"targets": \\{[^{]*"items": \\{\\s*"type": "string",\\s*"enum": \\[[^\\]]*"${lastTarget}"`));
    expect(runCount(copy)).toBe(0);
  }, 120_000);

  it('prints the critic request for one case, with its recorded trace, as the exact Messages API body with --json', () => {
    const result = cli(['prompts', '--role', 'critic', '--case', 'train-001', '--json', '-C', demo]);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { role: string; stream: boolean; body: { messages: Array<{ content: string }>; tool_choice: unknown } };
    expect(printed).toMatchObject({ role: 'critic', stream: false, body: { tool_choice: { type: 'tool', name: 'submit_verdict' } } });
    expect(printed.body.messages[0]?.content).toMatch(/<trace>\n\[\{"type":"start","caseId":"train-001"/);
    expect(cli(['prompts', '--role', 'critic', '--case', 'train-999', '-C', demo]).stderr).toMatch(/--case: the train split .* has no case "train-999"/);
    expect(cli(['prompts', '--role', 'agent', '-C', demo]).code).toBe(2);
  }, 120_000);
});

describe('agentdevel gate', () => {
  it('rejects a candidate whose tool wrappers throw, listing the regressed cases, and leaves the line alone', () => {
    git(demo, 'checkout', '-q', '-b', 'broken-wrappers');
    const wrapper = path.join(demo, 'blueprints/support-agent/tools/get_order.ts');
    writeFileSync(wrapper, readFileSync(wrapper, 'utf8').replace(/run: \(([^)]*)\)[^,]*=>[\s\S]*?,\n};/, "run: () => {\n    throw new Error('order service unavailable');\n  },\n};"));
    git(demo, 'commit', '-qam', 'make get_order throw');
    git(demo, 'checkout', '-q', 'main');
    const before = lineState(demo);

    const result = cli(['gate', '--candidate', 'broken-wrappers', '--json', '-C', demo]);
    expect(result.code).toBe(1);
    const verdict = JSON.parse(result.stdout) as { decision: string; p2f: string[] };
    expect(verdict.decision).toBe('reject');
    expect(verdict.p2f.length).toBeGreaterThan(0);
    for (const id of verdict.p2f) expect(id).toMatch(/^train-\d{3}$/);
    expect(lineState(demo)).toBe(before);
  });

  it("gates a person's edit to a train case on the candidate's task (the release measured on it too), and a dry gate leaves the line alone", () => {
    git(demo, 'checkout', '-q', '-b', 'edits-the-task');
    const train = path.join(demo, 'rubrics/orders/train.jsonl');
    writeFileSync(train, readFileSync(train, 'utf8').replace('"confirms":false', '"confirms":true'));
    git(demo, 'commit', '-qam', 'make the task easier');
    git(demo, 'checkout', '-q', 'main');
    const before = lineState(demo);

    const result = cli(['gate', '--candidate', 'edits-the-task', '--json', '-C', demo]);
    expect(result.code, result.stderr).toBeLessThanOrEqual(1);
    const verdict = JSON.parse(result.stdout) as { ranCandidate: boolean; baselineScreen: string; change: { blueprint: boolean; task: { cases: { edited: string[] }; baseline: { label: string } } } };
    expect(verdict.ranCandidate).toBe(true);
    expect(verdict.change.blueprint).toBe(false);
    expect(verdict.change.task.cases.edited).toHaveLength(1);
    expect(verdict.change.task.baseline.label).toMatch(/^support-agent\/v\d+ on edits-the-task's task$/);
    expect(verdict.baselineScreen).toMatch(/on edits-the-task's task: \d+ records?, \d+ run now \(\d+ case-trials\); run now because the recorded run of this version \(run [^)]+\) differs: the task \(rubrics\/orders: its rubric, cases, scorers or environment\) changed/);
    expect(lineState(demo)).toBe(before);
  });
});

describe('reviewing a release and running in CI', () => {
  it('show prints a case\'s input, expected value, output, scorer and critic verdicts, and its trace', () => {
    const result = cli(['show', 'train-007', '-C', demo]);
    expect(result.code, result.stderr).toBe(0);
    for (const part of [/^train-007 in run-/, /^input:\n {4}\{\n {6}"id": "train-007"/m, /^expected:\n/m, /^ {2}output:/m, /^ {2}scorers:\n {4}(pass|FAIL) {2}state/m, /^ {2}critic: /m, /^ {2}trace \(traces\/run-/m, /→ get_order\(/, /← (ok|ERROR) /]) {
      expect(result.stdout).toMatch(part);
    }
    const json = JSON.parse(cli(['show', 'train-007', '--json', '-C', demo]).stdout) as { trials: Array<{ trace: Array<{ type: string }> }> };
    expect(json.trials[0]?.trace.some((e) => e.type === 'tool_call')).toBe(true);
  });

  it('run ends with each failing case and a one-line reason, and the mock agent is labelled simulated', () => {
    const result = cli(['run', '--json', '-C', demo]);
    expect(result.code).toBe(0);
    const run = JSON.parse(result.stdout) as { failing: Array<{ caseId: string; reason: string }>; simulated: boolean; mockRoles: string[] };
    expect(run.simulated).toBe(true);
    expect(run.mockRoles).toContain('agent');
    expect(run.failing.length).toBeGreaterThan(0);
    for (const c of run.failing) expect(c.reason).toMatch(/scorer: expected|critic: /);
    const text = cli(['run', '-C', demo]).stdout;
    expect(text).toMatch(/^failing \(\d+ cases?; `agentdevel show CASE`/m);
    for (const c of run.failing) expect(text).toContain(`  ${c.caseId}  `);
  });

  it('gate on a hand-made branch writes a PR summary naming each flip with its reason, JUnit with one testcase per case, and its reports', () => {
    const out = path.join(tempDir(), 'ci');
    mkdirSync(out);
    const stepSummary = path.join(out, 'step-summary.md');
    const result = cli(['gate', '--candidate', 'broken-wrappers', '--summary', path.join(out, 's.md'), '--junit', path.join(out, 'j.xml'), '--report-dir', path.join(out, 'report'), '--json', '-C', demo], {
      env: { GITHUB_STEP_SUMMARY: stepSummary },
    });
    expect(result.code).toBe(1);
    const verdict = JSON.parse(result.stdout) as { p2f: string[]; caseReasons: Record<string, string>; reports: string[] };
    const summary = readFileSync(path.join(out, 's.md'), 'utf8');
    expect(summary).toMatch(/^### agentdevel gate: ❌ `broken-wrappers` \(`[0-9a-f]{10}`\) rejected\n\n\*\*Why:\*\*\n\n- /);
    for (const id of verdict.p2f) expect(summary).toMatch(new RegExp(`\\| \`${id}\` \\| .*(scorer|critic)`));
    expect(readFileSync(stepSummary, 'utf8')).toContain(summary.trim());

    const xml = readFileSync(path.join(out, 'j.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const suite = (new XMLParser({ ignoreAttributes: false }).parse(xml) as { testsuites: { testsuite: { testcase: Array<Record<string, unknown>> } } }).testsuites.testsuite;
    const trainCases = readFileSync(path.join(demo, 'rubrics/orders/train.jsonl'), 'utf8').trim().split('\n').length;
    expect(suite.testcase).toHaveLength(trainCases + 1);
    expect(suite.testcase.at(-1)?.['@_name']).toBe('gate');
    const failed = suite.testcase.filter((t) => t.failure !== undefined).map((t) => t['@_name']);
    for (const id of verdict.p2f) expect(failed).toContain(id);
    expect(suite.testcase.some((t) => t.error !== undefined)).toBe(false);

    expect(verdict.reports.map((f) => path.basename(f)).sort()).toEqual(['cases.json', 'decision.json', 'flips.json', 'intent.json', 'report.html', 'report.md']);
    // One folder per candidate and commit under --report-dir.
    expect(path.relative(path.join(out, 'report'), path.dirname(verdict.reports[0] ?? ''))).toMatch(/^broken-wrappers-[0-9a-f]{10}$/);
    const report = readFileSync(path.join(path.dirname(verdict.reports[0] ?? ''), 'report.md'), 'utf8');
    expect(report).toMatch(/```+diff\ndiff --git a\/blueprints\/support-agent\/tools\/get_order\.ts/);
    // A dry gate is no iteration of the line: titled by its candidate, with no iteration number.
    // The raw markdown reads as the text does: no needless escapes.
    expect(report).toMatch(/^# Gate: broken-wrappers \([0-9a-f]{10}\) rejected \(dry gate: nothing recorded\)\n/);
    expect(report).not.toMatch(/\| Iteration \|/);
    expect(readFileSync(path.join(path.dirname(verdict.reports[0] ?? ''), 'report.html'), 'utf8')).toMatch(/<h1>Gate: broken-wrappers \([0-9a-f]{10}\) rejected \(dry gate: nothing recorded\)<\/h1>/);
    expect(report).toMatch(/\| why it fails now \|/);
  });

  it('refuses a branch cut before the current release, naming both releases, unless --allow-behind', () => {
    git(demo, 'checkout', '-q', '-b', 'cut-at-v1', 'support-agent/v1');
    const prompt = path.join(demo, 'blueprints/support-agent/system.hbs');
    writeFileSync(prompt, `${readFileSync(prompt, 'utf8')}\nBe brief.\n`);
    git(demo, 'commit', '-qam', 'a change made on top of v1');
    git(demo, 'checkout', '-q', 'main');
    const runsBefore = runCount(demo);
    const result = cli(['gate', '--candidate', 'cut-at-v1', '-C', demo]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/CANDIDATE_BEHIND: --candidate: "cut-at-v1" is based on support-agent\/v1, the current release is support-agent\/v\d+: rebase onto it/);
    expect(runCount(demo)).toBe(runsBefore);
    const allowed = cli(['gate', '--candidate', 'cut-at-v1', '--allow-behind', '--json', '-C', demo]);
    expect([0, 1]).toContain(allowed.code);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ candidate: 'cut-at-v1', ranCandidate: true });
  });

  it('evaluate-test repeated shows the recorded result with the same provenance', () => {
    const again = JSON.parse(cli(['evaluate-test', '--json', '-C', demo]).stdout) as { repeated: boolean; simulated: boolean };
    expect(again).toMatchObject({ repeated: true, simulated: true });
  });

  it('report writes the HTML report of a rejected RC from its audit ref, and of a release', () => {
    const rejected = JSON.parse(cli(['report', 'iter-001', '--json', '-C', demo]).stdout) as { report: string; outcome: string };
    expect(rejected.outcome).toBe('rejected');
    expect(readFileSync(rejected.report, 'utf8')).toMatch(/<h1>Rejected release candidate \(agentdevel\/rc\/support-agent\/iter-001, iteration 1\)<\/h1>/);
    expect(cli(['report', 'support-agent/v1', '-C', demo]).stdout).toMatch(/report: .*support-agent\/v1\/report\.html/);
    expect(readFileSync(path.join(demo, 'releases/support-agent/index.html'), 'utf8')).toMatch(/<svg class="chart"/);
  });

  it('sync pushes the line, tags and refs/agentdevel/*, and a fresh clone gets its log back with it', () => {
    const remote = path.join(tempDir(), 'remote.git');
    git(path.dirname(remote), 'init', '-q', '--bare', '--initial-branch=main', remote);
    expect(cli(['sync', remote, '--push-only', '-C', demo]).code).toBe(0);
    const clone = path.join(tempDir(), 'clone');
    git(path.dirname(clone), 'clone', '-q', remote, clone);
    const empty = cli(['log', '-C', clone]);
    expect(empty.stdout).toMatch(/fresh clone.*agentdevel sync/);
    expect(cli(['sync', '--fetch-only', '-C', clone]).code).toBe(0);
    expect(logLines(clone).map((e) => [e.rc, e.decision, e.tag])).toEqual(logLines(demo).map((e) => [e.rc, e.decision, e.tag]));
  });

  it('with --json, an error is a JSON object on stdout too; a typo gets a suggestion and one line of usage', () => {
    const result = cli(['gate', '--candidate', 'no-such-branch', '--json', '-C', demo]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({ error: { code: 'REF_NOT_FOUND', message: expect.stringContaining('no-such-branch'), hint: expect.any(String), exitCode: 2 } });
    const typo = cli(['iterat']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/Did you mean iterate\?/);
    expect(typo.stderr.trim().split('\n').length).toBeLessThanOrEqual(3);
  });
});

describe('agentdevel init', () => {
  it('scaffolds a command workspace whose run passes with no edits and is not labelled simulated', () => {
    const dir = path.join(tempDir(), 'fresh');
    mkdirSync(dir);
    git(dir, 'init', '-q');
    const init = cli(['init', '--runtime', 'command', '-C', dir]);
    expect(init.code, init.stderr).toBe(0);
    const junit = path.join(dir, '..', 'run.xml');
    const run = cli(['run', '--json', '--junit', junit, '-C', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ passRate: 1, failing: [], simulated: false, mockRoles: ['critic', 'diagnostician', 'synthesizer'] });
    expect(readFileSync(junit, 'utf8')).toMatch(/<testsuite name="agentdevel\.my-agent" tests="6" failures="0" errors="0" skipped="0">/);
    expect(cli(['run', '-C', dir]).stdout).not.toMatch(/simulated/);
    // `--case` (repeatable) runs only the named cases; an id of no case is bad usage.
    expect(JSON.parse(cli(['run', '--json', '--case', 'add-1', '--case', 'sub-1', '-C', dir]).stdout)).toMatchObject({ passed: 2, graded: 2 });
    // An identical run is reused unless --fresh asks for new case-trials; --concurrency overrides the config's.
    const again = JSON.parse(cli(['run', '--json', '--case', 'add-1', '--case', 'sub-1', '-C', dir]).stdout) as { runId: string; reused: boolean };
    expect(again.reused).toBe(true);
    const fresh = JSON.parse(cli(['run', '--json', '--fresh', '--concurrency', '1', '--case', 'add-1', '--case', 'sub-1', '-C', dir]).stdout) as { runId: string; reused: boolean; passed: number };
    expect(fresh).toMatchObject({ reused: false, passed: 2 });
    expect(fresh.runId).not.toBe(again.runId);
    const badConcurrency = cli(['run', '--concurrency', '0', '-C', dir]);
    expect(badConcurrency.code).toBe(2);
    expect(badConcurrency.stderr).toMatch(/--concurrency: expected a whole number from 1 to 64, got "0"/);
    // show names an id that is no case as such, not as a missing run.
    const noCase = cli(['show', 'add-9', '-C', dir]);
    expect(noCase.code).toBe(2);
    expect(noCase.stderr).toMatch(/no case of the train split of rubrics\/arithmetic has the id "add-9", and no run graded one/);
    const unknown = cli(['run', '--case', 'add-9', '-C', dir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no case of the train split of rubrics\/\S+ has the id "add-9"/);
    for (const readme of ['releases/README.md', 'diagnostics/README.md', 'traces/README.md']) expect(existsSync(path.join(dir, readme))).toBe(true);
    // traces/ is ignored but its README is kept; a second init refuses and writes nothing.
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all', 'traces')).toBe('?? traces/README.md');
    // The synthesizer is told about a command agent, and nothing of the tool-loop runtime.
    const prompt = cli(['prompts', '--role', 'synthesizer', '-C', dir]);
    expect(prompt.code, prompt.stderr).toBe(0);
    expect(prompt.stdout).toContain('blueprints/my-agent/blueprint.json keeps "runtime": "command"');
    expect(prompt.stdout).toMatch(/- "command" \(required\): Executable and arguments/);
    expect(prompt.stdout).toMatch(/- "timeoutMs": Milliseconds/);
    expect(prompt.stdout).toContain('every .hbs template compiles and every partial it names exists');
    for (const word of ['tool-loop', 'maxSteps', 'wrapper', 'ctx.env', '<environment_api>']) expect(prompt.stdout).not.toContain(word);
    // A template naming a partial the blueprint lacks fails when the blueprint loads, before any case runs.
    writeFileSync(path.join(dir, 'blueprints/my-agent/prompt.hbs'), 'Answer.\n{{> partials/style}}\n');
    const broken = cli(['run', '-C', dir]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/blueprints\/my-agent\/prompt\.hbs:2: template is invalid: the partial "partials\/style" does not exist/);
    rmSync(path.join(dir, 'blueprints/my-agent/prompt.hbs'));
    expect(cli(['init', '-C', dir]).code).toBe(2);
    expect(cli(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('bad input', () => {
  it.each([
    ['a malformed line 3', 'rubrics/orders/train.jsonl', (text: string) => text.split('\n').map((l, i) => (i === 2 ? '{"id": "train-003", "user": oops}' : l)).join('\n'), /rubrics\/orders\/train\.jsonl:3: not valid JSON/],
    ['a duplicate case id', 'rubrics/orders/train.jsonl', (text: string) => text.replace('"id":"train-005"', '"id":"train-001"'), /rubrics\/orders\/train\.jsonl:5: duplicate case id "train-001"/],
    ['a config value of the wrong type', 'agentdevel.config.json', (text: string) => text.replace('"trials": 1', '"trials": "1"'), /agentdevel\.config\.json: trials: .*expected number/],
  ])('run exits 2 on %s, naming the file and line or key, and records nothing', (_name, file, edit, message) => {
    const target = path.join(demo, file);
    const original = readFileSync(target, 'utf8');
    const runsBefore = runCount(demo);
    const refsBefore = lineState(demo);
    const logBefore = cli(['log', '--json', '-C', demo]).stdout;
    writeFileSync(target, edit(original));
    try {
      const result = cli(['run', '-C', demo]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(2);
      expect(result.stdout).toBe('');
    } finally {
      writeFileSync(target, original);
    }
    expect(runCount(demo)).toBe(runsBefore);
    expect(lineState(demo)).toBe(refsBefore);
    expect(cli(['log', '--json', '-C', demo]).stdout).toBe(logBefore);
  });

  it('iterate refuses a dirty working tree', () => {
    const readme = path.join(demo, 'NOTES.md');
    writeFileSync(readme, 'work in progress\n');
    try {
      const result = cli(['iterate', '-C', demo]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/uncommitted changes \(NOTES\.md\)/);
    } finally {
      git(demo, 'clean', '-qf', 'NOTES.md');
    }
  });

  it('a second writer refuses while the workspace is held', async () => {
    const holder = spawn('sleep', ['30']);
    writeFileSync(path.join(demo, '.agentdevel', 'lock'), JSON.stringify({ pid: holder.pid, command: 'iterate', since: 'now' }));
    try {
      const result = cli(['iterate', '-C', demo]);
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/WORKSPACE_LOCKED.*`agentdevel iterate` \(pid \d+\)/);
    } finally {
      holder.kill();
      writeFileSync(path.join(demo, '.agentdevel', 'lock'), JSON.stringify({ pid: 2 ** 22 + 777, command: 'iterate', since: 'then' }));
    }
    expect(cli(['run', '-C', demo]).code).toBe(0);
  });

  it('exits 2 on an unknown command or option', () => {
    expect(cli(['iterat']).code).toBe(2);
    expect(cli(['iterate', '--max-iterations', 'zero', '-C', demo]).code).toBe(2);
  });
});

describe('iterate across invocations', () => {
  it('remembers earlier RCs from git, so a rejected idea is not proposed again', async () => {
    const dir = await exampleWorkspace();
    expect(cli(['iterate', '--max-iterations', '1', '-C', dir]).code).toBe(0);
    expect(cli(['iterate', '--max-iterations', '1', '-C', dir]).code).toBe(0);
    const entries = logLines(dir);
    expect(entries.map((e) => e.decision)).toEqual(['rejected', 'promoted']);
    expect(entries[1]?.rationale).not.toEqual(entries[0]?.rationale);
    expect(entries[1]?.fingerprint).not.toEqual(entries[0]?.fingerprint);
  }, 180_000);
});
