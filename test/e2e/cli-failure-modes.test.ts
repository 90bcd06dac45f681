// Hardening, as a user meets it: bad input is one clear error and exit 2 with nothing recorded,
// nothing hangs (every command here must end by itself within its bound; none is stopped by the
// test), untrusted code cannot signal, starve or outlive agentdevel, an RC cannot reach past its
// blueprint through a link, crashes and interrupts leave nothing held, and the test split's
// seal lives in git.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { startFakeAnthropic, toolAnswer, type FakeAnthropic, type FakeRequest } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { cli, cliWithin, exampleWorkspace, git, lineState, processesMentioning, tempDir } from '../helpers/workspace.ts';
import { until } from '../helpers/waits.ts';

const BOUND_MS = 45_000;
const LEFT_RUNNING = /still running after the command finished/;

function runCount(dir: string): number {
  const file = path.join(dir, '.agentdevel', 'state.db');
  if (!existsSync(file)) return 0;
  const sql = openSql(file);
  try {
    return Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE origin = 'local'`)?.n ?? 0);
  } finally {
    sql.close();
  }
}

function editFile(dir: string, file: string, edit: (text: string) => string): void {
  const target = path.join(dir, file);
  writeFileSync(target, edit(readFileSync(target, 'utf8')));
}

function restore(dir: string): void {
  git(dir, 'checkout', '-q', '--', '.');
  git(dir, 'clean', '-qfd', '--', 'blueprints', 'rubrics');
}

describe('bad input: one clear error naming the file and line or key, exit 2, nothing recorded', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await exampleWorkspace();
  });

  it.each<[string, (dir: string) => void, RegExp, RegExp | null]>([
    [
      'an unknown partial in the prompt template (it used to hang)',
      (d) => editFile(d, 'blueprints/support-agent/system.hbs', (t) => `${t}\n{{> no_such_partial}}\n`),
      /^error BLUEPRINT_INVALID: blueprints\/support-agent\/system\.hbs:\d+: .*the partial "no_such_partial" does not exist/m,
      /tool wrappers/,
    ],
    [
      'an invalid regex pattern',
      (d) => editFile(d, 'rubrics/orders/task.json', (t) => t.replace('[{ "kind": "state" }]', '[{ "kind": "state" }, { "kind": "regex", "pattern": "([a-z" }]')),
      /^error TASK_INVALID: rubrics\/orders\/task\.json: scorers\[1\]\.pattern: not a valid regular expression/m,
      null,
    ],
    [
      'regex flags given twice',
      (d) => editFile(d, 'rubrics/orders/task.json', (t) => t.replace('[{ "kind": "state" }]', '[{ "kind": "state" }, { "kind": "regex", "pattern": "refund", "flags": "gg" }]')),
      /^error TASK_INVALID: rubrics\/orders\/task\.json: scorers\[1\]\.flags: the flag "g" is given twice/m,
      null,
    ],
    [
      'a tool wrapper that throws when imported',
      (d) => editFile(d, 'blueprints/support-agent/tools/get_order.ts', (t) => `throw new Error('boom at import');\n${t}`),
      /^error BLUEPRINT_INVALID: .*blueprints\/support-agent\/tools\/get_order\.ts: throws when imported: boom at import/m,
      null,
    ],
    [
      'a tool wrapper that does not compile (its path once came out doubled)',
      (d) => editFile(d, 'blueprints/support-agent/tools/get_order.ts', (t) => t.replace('export default {', 'const broken: number = ;\nexport default {')),
      /^error BLUEPRINT_INVALID: blueprints\/support-agent\/tools\/get_order\.ts:3: /m,
      /blueprints\/support-agent\/.*blueprints\/support-agent/,
    ],
    [
      'a malformed critic-rules block in the rubric (it used to fall back to the defaults)',
      (d) => editFile(d, 'rubrics/orders/rubric.md', (t) => t.replace('"confirmBefore": ["cancel_order", "return_items"]', '"confirmBefore": "cancel_order"')),
      /^error TASK_INVALID: rubrics\/orders\/rubric\.md:\d+: critic-rules: confirmBefore: /m,
      null,
    ],
    [
      'a must-pass case id with a typo (it used to warn, and the gate accepted)',
      (d) => editFile(d, 'agentdevel.config.json', (t) => t.replace('"mustPass": ["tag:must-pass"]', '"mustPass": ["train-001", "trian-002"]')),
      /^error CONFIG_INVALID: agentdevel\.config\.json: gate\.layers\[0\]\.mustPass\[1\]: no train case has the id "trian-002"/m,
      null,
    ],
    [
      'a must-pass tag no case has',
      (d) => editFile(d, 'agentdevel.config.json', (t) => t.replace('"mustPass": ["tag:must-pass"]', '"mustPass": ["tag:must-pas"]')),
      /^error CONFIG_INVALID: agentdevel\.config\.json: gate\.layers\[0\]\.mustPass\[0\]: no train case has the tag "must-pas"/m,
      null,
    ],
    [
      'two tool wrappers with the same name (the error named only one of them)',
      (d) => {
        editFile(d, 'blueprints/support-agent/tools/list_orders.ts', (t) => t.replace(/name: '[a-z_]+'/, "name: 'get_order'"));
      },
      /^error BLUEPRINT_INVALID: .*blueprints\/support-agent\/tools\/get_order\.ts: a tool named "get_order" is already defined by .*blueprints\/support-agent\/tools\/list_orders\.ts/m,
      null,
    ],
  ])('run exits 2 on %s', async (_name, edit, message, notInMessage) => {
    edit(dir);
    try {
      const result = await cliWithin(['run', '-C', dir], BOUND_MS);
      expect(result.overran).toBe(false);
      expect(result.stderr).not.toMatch(LEFT_RUNNING);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      if (notInMessage) expect(result.stderr).not.toMatch(notInMessage);
      expect(result.stderr.trim().split('\n')).toHaveLength(2);
      expect(result.stdout).toBe('');
    } finally {
      restore(dir);
    }
    expect(runCount(dir)).toBe(0);
    // traces/ holds only its README (what agentdevel writes there): no trace was written.
    expect(readdirSync(path.join(dir, 'traces'))).toEqual(['README.md']);
  });

  it('names a bad case by the file the user knows, not the checkout it was read from', () => {
    git(dir, 'checkout', '-q', '-b', 'bad-cases');
    editFile(dir, 'rubrics/orders/train.jsonl', (t) => t.split('\n').map((l, i) => (i === 2 ? '{"id": "train-003", oops}' : l)).join('\n'));
    git(dir, 'commit', '-qam', 'break line 3');
    git(dir, 'checkout', '-q', 'main');
    try {
      const result = cli(['run', '--ref', 'bad-cases', '-C', dir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error CASES_INVALID: rubrics\/orders\/train\.jsonl:3: not valid JSON/m);
      expect(result.stderr).not.toMatch(/worktrees/);
    } finally {
      git(dir, 'branch', '-qD', 'bad-cases');
    }
    expect(runCount(dir)).toBe(0);
  });

  it('reports a -C folder that is missing or a file as bad usage (exit 2), not as a git failure', () => {
    const file = path.join(dir, 'agentdevel.config.json');
    for (const [target, message] of [
      [path.join(dir, 'no-such-folder'), /^error USAGE: -C .*no-such-folder: the folder .*no-such-folder does not exist$/m],
      [file, /^error USAGE: -C .*agentdevel\.config\.json: .*agentdevel\.config\.json is a file, not a folder$/m],
    ] as const) {
      for (const command of [['run'], ['log'], ['compare', 'a', 'b']]) {
        const result = cli([...command, '-C', target]);
        expect(result.code, `${command[0]}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(message);
        expect(result.stderr).not.toMatch(/GIT_FAILED|ENOENT|ENOTDIR/);
      }
    }
  });

  it('refuses --wait that is not a number of seconds, before anything runs', () => {
    const result = cli(['run', '--wait', 'abc', '-C', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error USAGE: --wait: expected a number of seconds/m);
    expect(runCount(dir)).toBe(0);
  });
});

describe('an RC that links out of its blueprint', () => {
  it.each([
    ['a folder link into the task', 'tools-out', '../../rubrics', false],
    ['a partial linked to the test split (it used to hang gate --promote)', 'leak.hbs', '../../rubrics/orders/test.jsonl', true],
  ])('is rejected before it runs: %s', async (_name, link, target, promote) => {
    const dir = await exampleWorkspace();
    git(dir, 'checkout', '-q', '-b', 'linked');
    symlinkSync(target, path.join(dir, 'blueprints/support-agent', link));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'link out of the blueprint');
    git(dir, 'checkout', '-q', 'main');
    const before = lineState(dir).replace(/^.*refs\/heads\/linked.*$/m, '');
    const result = await cliWithin(['gate', '--candidate', 'linked', ...(promote ? ['--promote'] : []), '--json', '-C', dir], BOUND_MS);
    expect(result.overran).toBe(false);
    expect(result.code).toBe(1);
    const verdict = JSON.parse(result.stdout) as { ranCandidate: boolean; reasons: string[] };
    expect(verdict.ranCandidate).toBe(false);
    expect(verdict.reasons[0]).toContain(`blueprints/support-agent/${link} -> ${target}`);
    expect(runCount(dir)).toBe(0);
    if (promote) expect(git(dir, 'rev-parse', 'main')).toBe(/refs\/heads\/main (\w+)/.exec(before)?.[1]);
  });
});

describe('untrusted code cannot signal, starve or outlive agentdevel', () => {
  let server: FakeAnthropic;
  beforeAll(async () => {
    server = await startFakeAnthropic(mockBrain);
  });
  afterAll(async () => {
    await server.close();
  });

  it('stops a diagnosis script and a tool wrapper that signal their parent, fill 512 MB of Buffers under memoryMb 64, or spin; records the limit each broke; and iterate goes on to exit 0', async () => {
    const dir = await exampleWorkspace();
    editFile(dir, 'agentdevel.config.json', (t) => {
      const config = JSON.parse(t) as Record<string, unknown>;
      config.models = { agent: 'mock', critic: 'mock', diagnostician: 'claude-sonnet-5-5', synthesizer: 'claude-sonnet-5-5' };
      config.sandbox = { timeoutMs: 4000, memoryMb: 64 };
      config.repairs = { diagnosis: 2, synthesis: 2 };
      // Only the first ten cases are kept: the must-pass tag (train-025) would name none.
      const gate = config.gate as { layers: Array<{ layer: string }> };
      gate.layers = gate.layers.map((layer) => (layer.layer === 'checks' ? { layer: 'checks' } : layer));
      return `${JSON.stringify(config, null, 2)}\n`;
    });
    editFile(dir, 'rubrics/orders/train.jsonl', (t) => `${t.trim().split('\n').slice(0, 10).join('\n')}\n`);
    // The first three cases' customers trip the wrapper into each misbehaviour.
    editFile(dir, 'blueprints/support-agent/tools/find_customer.ts', (t) =>
      t.replace(
        'run: (args: { email: string }, ctx: { env: { findCustomer(email: string): unknown } }) => ctx.env.findCustomer(args.email),',
        `run: (args: { email: string }, ctx: { env: { findCustomer(email: string): unknown } }) => {
    if (args.email === 'ana.lopez@example.com') process.kill(process.ppid, 'SIGTERM');
    if (args.email === 'zane.larsen49@example.com') { const keep: Buffer[] = []; for (let i = 0; i < 512; i += 1) keep.push(Buffer.alloc(1 << 20, 1)); }
    if (args.email === 'umar.iyer@example.com') for (;;) {}
    return ctx.env.findCustomer(args.email);
  },`,
      ),
    );
    git(dir, 'commit', '-qam', 'hostile wrappers; diagnostician and synthesizer on the fake API');

    const hostileScripts = [
      "process.kill(process.ppid, 'SIGTERM');",
      'const keep = []; for (let i = 0; i < 512; i += 1) keep.push(Buffer.alloc(1 << 20, 1));',
      'for (;;) {}',
    ];
    const prompt = readFileSync(path.join(dir, 'blueprints/support-agent/system.hbs'), 'utf8');
    const rc = (partial: string) => ({
      edits: [
        { path: 'blueprints/support-agent/partials/confirmation.hbs', content: 'Before you cancel or return anything, ask the customer to confirm, and act only on a clear "yes".\n', type: 'add', component: 'partial:partials/confirmation' },
        { path: 'blueprints/support-agent/system.hbs', content: `${prompt}\n{{> ${partial}}}\n`, type: 'revise', component: 'agent' },
      ],
      intent: { targets: ['agent_error'], rationale: 'ask for a confirmation before acting' },
    });
    const seen: FakeRequest[] = [];
    server.respond = (request) => {
      seen.push(request);
      const count = seen.filter((r) => r.role === request.role).length;
      if (request.role === 'diagnostician') return toolAnswer('submit_script', { script: hostileScripts[Math.min(count, 3) - 1] });
      // First a partial named as the file's base name (not how partials are named), then right.
      if (request.role === 'synthesizer') return toolAnswer('submit_release_candidate', rc(count === 1 ? 'confirmation' : 'partials/confirmation'));
      return mockBrain(request);
    };

    const result = await cliWithin(['iterate', '--max-iterations', '1', '--json', '-C', dir], 180_000, {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' },
    });
    expect(result.overran).toBe(false);
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.stderr).not.toMatch(LEFT_RUNNING);
    expect(result.code).toBe(0);
    expect(processesMentioning(dir)).toEqual([]);

    // The diagnosis scripts: each stopped, each with the limit or rule it broke; then the built-in one.
    const attempts = JSON.parse(git(dir, 'show', 'refs/agentdevel/rc/support-agent/iter-001:diagnostics/support-agent/iter-001/attempts.json')) as {
      source: string;
      attempts: Array<{ ok: boolean; error: string }>;
    };
    expect(attempts.source).toBe('builtin');
    expect(attempts.attempts.map((a) => a.error)).toEqual([
      expect.stringMatching(/stopped: it tried to signal another process/),
      expect.stringMatching(/killed at the memory limit of 64 MB/),
      expect.stringMatching(/killed after the time limit of 4000 ms/),
    ]);

    // The wrappers: each case fails with the limit or rule its host broke; the others ran as usual.
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    const baseline = sql.all<{ case_id: string; critic: string; status: string }>(
      `SELECT case_id, critic, records.status AS status FROM records JOIN runs ON runs.id = records.run_id WHERE runs.purpose = 'baseline'`,
    );
    sql.close();
    const description = (id: string) => String((JSON.parse(baseline.find((r) => r.case_id === id)?.critic ?? '{}') as { description?: string }).description);
    expect(description('train-001')).toMatch(/stopped: it tried to signal another process/);
    expect(description('train-002')).toMatch(/killed at the memory limit of 64 MB/);
    expect(description('train-003')).toMatch(/did not answer "call" within 4000 ms/);
    // Ten cases ran as usual in each of the baseline's three records.
    expect(baseline.filter((r) => r.status === 'ok')).toHaveLength(3 * 10);

    // The RC whose partial is misnamed is validated by rendering and repaired with the exact error.
    const synthesis = seen.filter((r) => r.role === 'synthesizer');
    expect(synthesis).toHaveLength(2);
    expect(synthesis[1]?.raw).toContain('the partial \\"confirmation\\" does not exist');
    const outcome = JSON.parse(result.stdout) as { iterations: Array<{ kind: string }> };
    expect(['promoted', 'rejected']).toContain(outcome.iterations[0]?.kind);
  }, 240_000);
});

describe('crash recovery', () => {
  it("prunes agentdevel's own worktrees, locked or orphaned, and only those", async () => {
    const dir = await exampleWorkspace();
    const ours = path.join(dir, '.agentdevel', 'worktrees');
    mkdirSync(ours, { recursive: true });
    // As a kill -9 during `git worktree add` leaves them: locked, one with its folder gone.
    git(dir, 'worktree', 'add', '-q', '--detach', '--lock', path.join(ours, 'baseline-killed'), 'main');
    git(dir, 'worktree', 'add', '-q', '--detach', '--lock', path.join(ours, 'orphaned'), 'main');
    rmSync(path.join(ours, 'orphaned'), { recursive: true, force: true });
    const theirs = path.join(tempDir(), 'users-own');
    git(dir, 'worktree', 'add', '-q', '--detach', '--lock', theirs, 'main');

    const result = cli(['run', '-C', dir]);
    expect(result.code).toBe(0);
    const listed = git(dir, 'worktree', 'list', '--porcelain');
    expect(listed).not.toContain('.agentdevel/worktrees');
    expect(listed).toContain(theirs);
    expect(existsSync(path.join(ours, 'baseline-killed'))).toBe(false);
  });

  it('SIGINT during an RC releases the lock and removes the RC worktree and branch before exiting', async () => {
    const dir = await exampleWorkspace();
    const bin = path.join(__dirname, '../../bin/agentdevel.mjs');
    const child = spawn(process.execPath, [bin, 'iterate', '--max-iterations', '1', '-C', dir], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CI: 'true' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const rcDir = path.join(dir, '.agentdevel', 'worktrees', 'rc-iter-001');
    await until(() => existsSync(rcDir), 60_000, 'the RC worktree');
    const interrupted = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(Date.now() - interrupted).toBeLessThan(15_000);
    expect(stderr).toMatch(/SIGINT: stopping/);
    expect(existsSync(path.join(dir, '.agentdevel', 'lock'))).toBe(false);
    expect(existsSync(rcDir)).toBe(false);
    expect(git(dir, 'worktree', 'list', '--porcelain')).not.toContain('.agentdevel/worktrees');
    expect(git(dir, 'branch', '--list', 'agentdevel/rc/*')).toBe('');
    expect(processesMentioning(dir)).toEqual([]);
  }, 90_000);
});

describe('the seal of the test split lives in git', () => {
  it('refuses a second evaluate-test after the store is deleted, and in a fresh clone of the pushed repository, printing the recorded result', async () => {
    const dir = await exampleWorkspace();
    const first = cli(['evaluate-test', '--json', '-C', dir]);
    expect(first.code).toBe(0);
    const recorded = JSON.parse(first.stdout) as { passRate: number; runId: string; repeated: boolean };
    expect(recorded.repeated).toBe(false);

    rmSync(path.join(dir, '.agentdevel'), { recursive: true, force: true });
    rmSync(path.join(dir, 'traces'), { recursive: true, force: true });
    const again = cli(['evaluate-test', '-C', dir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already evaluated on the test split.*sealed, so it is not run again/);
    expect(again.stdout).toContain(`passes ${(recorded.passRate * 100).toFixed(1)}% (${recorded.runId}`);
    expect(runCount(dir)).toBe(0);

    const remote = path.join(tempDir(), 'remote.git');
    git(path.dirname(remote), 'init', '-q', '--bare', '--initial-branch=main', remote);
    git(dir, 'push', '-q', remote, 'main', 'refs/agentdevel/*:refs/agentdevel/*');
    const clone = path.join(tempDir(), 'clone');
    git(path.dirname(clone), 'clone', '-q', remote, clone);
    const inClone = cli(['evaluate-test', '--json', '-C', clone]);
    expect(inClone.stderr).toBe('');
    expect(inClone.code).toBe(0);
    expect(JSON.parse(inClone.stdout)).toMatchObject({ repeated: true, passRate: recorded.passRate, runId: recorded.runId });
    expect(runCount(clone)).toBe(0);
  }, 90_000);
});
