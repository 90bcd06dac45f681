// Hardening at the level of the parts: process trees end with their case, a tool host that
// cannot start is stopped, errors are told apart by their class (absent from failed, the
// blueprint's fault from the machine's), damaged state is named with its fix, and secrets are
// redacted in every form a written file can hold them.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/adapters/blueprint/load.ts';
import { startRuntime } from '../../src/adapters/runtimes/index.ts';
import { startToolHost, ToolHostError } from '../../src/adapters/runtimes/tool-host/client.ts';
import { runBlueprintChecks } from '../../src/adapters/process/blueprint-checks.ts';
import { machineFailure } from '../../src/app/command-end.ts';
import { AgentdevelError } from '../../src/domain/errors.ts';
import type { ProgressEvent } from '../../src/domain/ports/reporter.ts';
import type { CaseRecord } from '../../src/domain/record.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { createMockEngine } from '../../src/adapters/engines/mock/index.ts';
import { GitRepo } from '../../src/adapters/git/git.ts';
import { clearStaleGitLocks, gitProcessesIn, repositoryPlaces } from '../../src/adapters/git/stale-locks.ts';
import { buildCandidate, checkCandidateLoads, discardCandidate } from '../../src/pipeline/loop/candidate.ts';
import { openWorkspace } from '../../src/app/workspace.ts';
import { runningChildren } from '../../src/adapters/process/children.ts';
import { makeRedactor } from '../../src/domain/environment.ts';
import { diagnose } from '../../src/stages/diagnose/diagnose.ts';
import { readTrace, traceLocation } from '../../src/stages/run/trace-file.ts';
import { migrations } from '../../src/adapters/store/migrations.ts';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { Store } from '../../src/adapters/store/store.ts';
import { runCollected } from '../helpers/run-cases.ts';
import { scriptedModel } from '../helpers/scripted-model.ts';
import { exampleWorkspace, git, processesMentioning, tempDir } from '../helpers/workspace.ts';
import { caseRecord } from '../helpers/records.ts';
import { waitFor } from '../helpers/waits.ts';
import { runSandboxed } from '../../src/adapters/process/sandbox.ts';

const clock = { now: () => new Date() };

/** A `command` blueprint whose agent is the given script (run with this Node). */
async function commandAgent(source: string, timeoutMs: number, passEnv: string[] = [], parentEnv: Record<string, string> = {}) {
  const dir = tempDir('agentdevel-cmd-');
  mkdirSync(path.join(dir, 'blueprints/a'), { recursive: true });
  writeFileSync(path.join(dir, 'blueprints/a/blueprint.json'), JSON.stringify({ runtime: 'command', command: [process.execPath, 'agent.mjs'], timeoutMs }));
  writeFileSync(path.join(dir, 'blueprints/a/agent.mjs'), source);
  const blueprint = await loadBlueprint(dir, 'a', tempDir('agentdevel-build-'));
  return { dir, runtime: await startRuntime({ blueprint, environmentBundle: null, model: createMockEngine(), agentModel: 'mock', callTimeoutMs: 5000, memoryMb: 128, passEnv, gradingPaths: ['expected'], parentEnv: { PATH: process.env.PATH ?? '', ...parentEnv } }) };
}

describe("a case's process tree", () => {
  it('ends with the case: children and grandchildren that keep stdout open are killed at the timeout, and so is one that left the group', async () => {
    const pids = tempDir();
    // Each process carries its own word in its command line: the pids it sees may be a PID namespace's, not ours.
    const mark = (name: string) => `agentdevel-tree-${name}-${process.pid}`;
    const { dir, runtime } = await commandAgent(
      `import { spawn } from 'node:child_process';
import fs from 'node:fs';
const child = spawn(process.execPath, ['child.cjs', '${mark('child')}'], { stdio: 'inherit' });
const escaped = spawn('setsid', [process.execPath, '-e', 'setInterval(() => {}, 1000)', '${mark('escaped')}'], { stdio: 'inherit' });
fs.writeFileSync(${JSON.stringify(path.join(pids, 'child'))}, String(child.pid));
fs.writeFileSync(${JSON.stringify(path.join(pids, 'escaped'))}, String(escaped.pid));
console.log(JSON.stringify({ type: 'message', role: 'assistant', text: 'working' }));
setInterval(() => {}, 1000);
`,
      1500,
    );
    writeFileSync(
      path.join(dir, 'blueprints/a/child.cjs'),
      `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(`require('node:fs').writeFileSync(${JSON.stringify(path.join(pids, 'grandchild'))}, String(process.pid)); setInterval(() => {}, 1000)`)}, '${mark('grandchild')}'], { stdio: 'inherit' });
setInterval(() => {}, 1000);
`,
    );
    const events: TraceEvent[] = [];
    const started = Date.now();
    try {
      const outcome = await runtime.runCase({ id: 'c1' }, 0, { emit: (e) => events.push(e) });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(outcome.output).toBeNull();
      expect(events).toContainEqual({ type: 'error', kind: 'agent', message: 'timed out after 1500 ms' });
      // The one that left the group (its own session) too: the agent is contained (untrusted.ts).
      for (const name of ['child', 'grandchild', 'escaped']) {
        expect(readFileSync(path.join(pids, name), 'utf8'), `${name} started`).toMatch(/^\d+$/);
        expect(await waitFor(() => processesMentioning(mark(name)).length === 0, 5000), name).toBe(true);
      }
    } finally {
      // Should containment fail, the test that started them ends them.
      for (const name of ['child', 'grandchild', 'escaped']) for (const line of processesMentioning(mark(name))) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    }
  });

  it('ends with the case when the agent exits but a grandchild keeps its stdout open', async () => {
    const { runtime } = await commandAgent(
      `import { spawn } from 'node:child_process';
spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' });
console.log(JSON.stringify({ type: 'final', output: 'done' }));
process.exit(0);
`,
      60_000,
    );
    const started = Date.now();
    const outcome = await runtime.runCase({ id: 'c1' }, 0, { emit: () => undefined });
    expect(outcome.output).toBe('done');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('a tool host that cannot start', () => {
  it('is stopped within its time limit, leaving no process behind', async () => {
    const dir = await exampleWorkspace();
    writeFileSync(path.join(dir, 'blueprints/support-agent/tools/get_order.ts'), "import { z } from 'zod';\nfor (;;) {}\nexport default { name: 'get_order', description: 'd', inputSchema: z.object({}), run: () => 1 };\n");
    const blueprint = await loadBlueprint(dir, 'support-agent', tempDir('agentdevel-build-'));
    const before = runningChildren();
    const started = Date.now();
    const error = await startToolHost({ wrappers: blueprint.wrappersBundle as string, environment: null }, { callTimeoutMs: 1500, memoryMb: 128 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolHostError);
    expect((error as Error).message).toMatch(/did not answer "init" within 1500 ms/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await waitFor(() => runningChildren() === before, 5000)).toBe(true);
  });
});

describe('errors are told apart by their class', () => {
  it("a check of an RC returns the blueprint's problems for a repair, and lets anything else through", async () => {
    const dir = await exampleWorkspace();
    const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock });
    const base = git(dir, 'rev-parse', 'HEAD');
    const candidate = { edits: [{ path: 'blueprints/support-agent/system.hbs', content: 'Hello {{> partials/missing}}\n' }], intent: { targets: ['x'], rationale: 'r' } };
    const built = await buildCandidate(workspace, base, 1, candidate);
    try {
      expect(await checkCandidateLoads(workspace, built)).toMatch(/system\.hbs:1: template does not compile: the partial "partials\/missing" does not exist/);
      // Not the RC's doing: agentdevel's build folder is a file. Not a repair request.
      writeFileSync(path.join(workspace.stateDir, 'build'), 'not a folder');
      const error = await checkCandidateLoads(workspace, built).catch((e: unknown) => e);
      expect(typeof error).not.toBe('string');
      expect((error as NodeJS.ErrnoException).code).toMatch(/ENOTDIR|EEXIST/);
    } finally {
      rmSync(path.join(workspace.stateDir, 'build'), { force: true });
      await discardCandidate(workspace, built);
      await workspace.close();
    }
  });

  it('git answers "absent" with null or false, and a broken repository with GIT_FAILED', async () => {
    const dir = await exampleWorkspace();
    const repo = await GitRepo.open(dir);
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(await repo.resolve('no-such-branch')).toBeNull();
    expect(await repo.readFileAt(head, 'no/such/file')).toBeNull();
    expect(await repo.readFileAt('refs/agentdevel/none', 'x')).toBeNull();
    expect(await repo.isAncestor(head, head)).toBe(true);
    // Many files in one process (cat-file --batch): sizes are in bytes, text is UTF-8.
    writeFileSync(path.join(dir, 'notes.md'), 'déjà vu ✓\n');
    git(dir, 'add', 'notes.md');
    git(dir, 'commit', '-qm', 'notes');
    const noted = git(dir, 'rev-parse', 'HEAD');
    const config = readFileSync(path.join(dir, 'agentdevel.config.json'), 'utf8');
    expect(await repo.readTextFilesAt([{ commit: noted, path: 'notes.md' }, { commit: noted, path: 'no/such/file' }, { commit: head, path: 'notes.md' }, { commit: noted, path: 'agentdevel.config.json' }])).toEqual([
      'déjà vu ✓\n',
      null,
      null,
      config,
    ]);
    expect(Object.fromEntries(await repo.changedPathsOfCommits([noted, head]))).toEqual({ [noted]: [{ status: 'A', path: 'notes.md' }], [head]: [] });
    git(dir, 'checkout', '-q', '--orphan', 'unrelated');
    git(dir, 'commit', '-qm', 'unrelated history');
    const other = git(dir, 'rev-parse', 'HEAD');
    expect(await repo.mergeBase(head, other)).toBeNull();
    expect(await repo.isAncestor(head, other)).toBe(false);

    renameSync(path.join(dir, '.git'), path.join(dir, '.git-away'));
    for (const call of [() => repo.resolve('main'), () => repo.readFileAt(head, 'agentdevel.config.json'), () => repo.isAncestor(head, head), () => repo.mergeBase(head, head)]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentdevelError);
      expect((error as AgentdevelError).code).toBe('GIT_FAILED');
    }
  });

  it('a missing trace is said, not silently read as empty', async () => {
    const tracesRoot = tempDir('agentdevel-traces-');
    const record = caseRecord('a', false, { traceRef: 'run-x/a.t0.jsonl', critic: { pass: false, label: 'tool_error', description: 'd' } });
    const events: ProgressEvent[] = [];
    await diagnose(
      { runId: 'run-x', tracesRoot, workDir: tempDir(), previousScript: null, previousReport: null, lastRc: null, caseChanges: null, model: 'mock', taxonomy: [], limits: { timeoutMs: 10_000, memoryMb: 128 }, maxRepairs: 0 },
      { model: createMockEngine(), sandbox: runSandboxed, reporter: { emit: (e) => events.push(e) }, records: { eachRecord: () => [record] } },
    );
    expect(events).toContainEqual({ type: 'warning', message: expect.stringMatching(/1 trace is missing or damaged \(first: .*run-x\/a\.t0\.jsonl\)/) });
  });
});

describe('damaged or foreign state', () => {
  it.each<[string, (dir: string) => void, string, RegExp]>([
    ['a file that is not a database', (d) => writeFileSync(path.join(d, '.agentdevel/state.db'), 'these are my notes, not a database'.repeat(200)), 'STORE_DAMAGED', /state\.db cannot be used as agentdevel's store: .*\(SQLITE_NOTADB\)/],
    [
      'a truncated database',
      (d) => {
        const file = path.join(d, '.agentdevel/state.db');
        writeFileSync(file, readFileSync(file).subarray(0, 1500));
      },
      'STORE_DAMAGED',
      /state\.db cannot be used as agentdevel's store: .*SQLITE_CORRUPT/,
    ],
    [
      'a store from a newer agentdevel',
      (d) => {
        const sql = openSql(path.join(d, '.agentdevel/state.db'));
        sql.pragma(`user_version = ${migrations.length + 5}`);
        sql.close();
      },
      'STORE_TOO_NEW',
      new RegExp(`schema version ${migrations.length + 5}; this agentdevel knows versions up to ${migrations.length}`),
    ],
    [
      'a file where its folder should be',
      (d) => {
        rmSync(path.join(d, '.agentdevel'), { recursive: true, force: true });
        writeFileSync(path.join(d, '.agentdevel'), 'x');
      },
      'STORE_DAMAGED',
      /\.agentdevel is a file, but agentdevel keeps its store in a folder there/,
    ],
  ])('%s is a clear error with its fix', (_name, damage, code, message) => {
    const dir = tempDir('agentdevel-store-');
    Store.open(dir, clock).close();
    damage(dir);
    const error = (() => {
      try {
        Store.open(dir, clock).close();
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AgentdevelError);
    expect((error as AgentdevelError).code).toBe(code);
    expect((error as AgentdevelError).message).toMatch(message);
    expect((error as AgentdevelError).hint).toMatch(/move/i);
  });

  it('a full disk, or a file where a folder should be, is a file-system error, not a bug', async () => {
    const failing = (work: () => void) => {
      try {
        work();
        return null;
      } catch (e) {
        return e;
      }
    };
    const full = await machineFailure(failing(() => writeFileSync('/dev/full', 'x')));
    expect(full?.code).toBe('FILE_SYSTEM');
    expect(full?.exitCode).toBe(3);
    expect(full?.message).toMatch(/write: no space left on the device \(ENOSPC\)/);
    const dir = tempDir();
    writeFileSync(path.join(dir, 'traces'), 'a file');
    const notAFolder = await machineFailure(failing(() => mkdirSync(path.join(dir, 'traces', 'run-1'), { recursive: true })));
    expect(notAFolder?.message).toMatch(/traces.*a file stands where a folder should be/);
    expect(await machineFailure(new TypeError('a bug'))).toBeNull();
    expect(await machineFailure(Object.assign(new Error('kill EPERM'), { code: 'EPERM', errno: -1, syscall: 'kill' }))).toBeNull();
  });

  it('case ids that cannot be file names still get a trace each, read back by their record', async () => {
    const ids = ['a/b', '../up', '.hidden', 'x'.repeat(300), `${'y'.repeat(300)}1`, `${'y'.repeat(300)}2`, 'ü'.repeat(120), 'tab\there'];
    const { runtime } = await commandAgent(`let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => console.log(JSON.stringify({ type: 'final', output: JSON.parse(s).id })));\n`, 10_000);
    const { records, tracesRoot } = await runCollected(
      { runId: 'run-ids', cases: ids.map((id) => ({ id })), trials: 1, concurrency: 4, rubric: 'r', scorers: [], taskRoot: tempDir(), criticModel: 'mock', growTaxonomy: false },
      { runtime, model: scriptedModel({}) },
    );
    expect(records.map((r) => r.caseId).sort()).toEqual([...ids].sort());
    for (const record of records) {
      const trace = await readTrace(tracesRoot, record.traceRef);
      expect(trace?.[0]).toEqual({ type: 'start', caseId: record.caseId, trial: 0 });
      expect(trace?.at(-1)).toEqual({ type: 'final', output: record.caseId });
    }
    // One segment holds them all: case ids never become file names.
    expect(readdirSync(path.join(tracesRoot, 'run-ids'))).toEqual(['part-0001.jsonl']);
  });
});

describe('secrets', () => {
  it('are redacted raw and JSON-escaped, in traces and in the records the store keeps', async () => {
    const secret = 'sk-"quoted\\secret-0123456789';
    const { runtime } = await commandAgent(
      `const key = process.env.SHOP_API_KEY;
console.log(JSON.stringify({ type: 'message', role: 'assistant', text: 'my key is ' + key }));
console.log(JSON.stringify({ type: 'final', output: { note: JSON.stringify({ key }), key } }));
`,
      10_000,
      ['SHOP_API_KEY'],
      { SHOP_API_KEY: secret },
    );
    const redact = makeRedactor([secret]);
    const { records: saved, tracesRoot } = await runCollected(
      { runId: 'run-s', cases: [{ id: 'c1' }], trials: 1, concurrency: 1, rubric: 'r', scorers: [], taskRoot: tempDir(), criticModel: 'mock', growTaxonomy: false },
      { runtime, model: scriptedModel({}), redact },
    );
    const forms = [secret, JSON.stringify(secret).slice(1, -1), 'quoted\\secret-0123456789'];
    const trace = readFileSync(traceLocation(tracesRoot, (saved[0] as CaseRecord).traceRef).file, 'utf8');
    const stored = JSON.stringify(saved);
    expect(trace).toContain('[redacted]');
    expect(stored).toContain('[redacted]');
    for (const form of forms) {
      expect(trace).not.toContain(form);
      expect(stored).not.toContain(form);
    }
  });
});

describe('a tool wrapper that allocates memory off the heap', () => {
  it('ends its host at the memory limit, and the failure names that limit (not an ordinary tool error)', async () => {
    const dir = await exampleWorkspace();
    // 64 MB Buffers kept alive: outside the V8 heap, under the data-segment limit only.
    writeFileSync(
      path.join(dir, 'blueprints/support-agent/tools/get_order.ts'),
      "import { z } from 'zod';\nconst kept: Buffer[] = [];\nexport default { name: 'get_order', description: 'd', inputSchema: z.object({}).passthrough(), run: () => { for (;;) kept.push(Buffer.alloc(64 * 1024 * 1024, 1)); } };\n",
    );
    const blueprint = await loadBlueprint(dir, 'support-agent', tempDir('agentdevel-build-'));
    const host = await startToolHost({ wrappers: blueprint.wrappersBundle as string, environment: null }, { callTimeoutMs: 20_000, memoryMb: 64 });
    try {
      await host.open('s1', { id: 'c1' });
      const error = await host.call('s1', 'get_order', {}).then(
        (outcome) => new Error(`the call came back: ${JSON.stringify(outcome).slice(0, 200)}`),
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(ToolHostError);
      expect(error.message).toMatch(/the tool host was killed at the memory limit of 64 MB/);
    } finally {
      host.stop();
    }
  });
});

describe("a blueprint's checks get the limits of all untrusted code", () => {
  it('are stopped at the memory limit (off-heap too), named as such', async () => {
    const folder = tempDir('agentdevel-checks-');
    // 512 MB of Buffers, kept: no V8 heap limit sees them; the data-segment limit does.
    const hog = "const kept = []; for (let i = 0; i < 32; i += 1) kept.push(Buffer.alloc(16 * 1024 * 1024, 1)); console.log('allocated', kept.length * 16, 'MB');";
    const [outcome] = await runBlueprintChecks([{ name: 'hog', command: [process.execPath, '-e', hog], timeoutMs: 30_000 }], folder, { PATH: process.env.PATH ?? '' }, 64);
    expect(outcome?.ok).toBe(false);
    expect(outcome?.detail).toBe('killed at the memory limit of 64 MB');
    const [fine] = await runBlueprintChecks([{ name: 'fine', command: [process.execPath, '-e', "console.log('ok')"], timeoutMs: 30_000 }], folder, { PATH: process.env.PATH ?? '' }, 64);
    expect(fine).toEqual({ name: 'fine', ok: true, detail: 'exit 0: ok' });
  });

  it('leave nothing running, even a child that left the process group', async () => {
    const folder = tempDir('agentdevel-checks-');
    const marker = `301.${process.pid}`;
    const escape = `setsid sleep ${marker} </dev/null >/dev/null 2>&1 & sleep 0.3; exit 0`;
    try {
      const [outcome] = await runBlueprintChecks([{ name: 'escape', command: ['sh', '-c', escape], timeoutMs: 30_000 }], folder, { PATH: process.env.PATH ?? '' }, 64);
      expect(outcome?.ok).toBe(true);
      expect(await waitFor(() => processesMentioning(`sleep ${marker}`).length === 0, 3000)).toBe(true);
    } finally {
      for (const line of processesMentioning(`sleep ${marker}`)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    }
  });
});

describe("git's own locks after a kill -9", () => {
  it('are cleared by the next command once no git process works in the repository, and never while one does', async () => {
    const dir = await exampleWorkspace();
    const gitDir = path.join(dir, '.git');
    const locks = [path.join(gitDir, 'index.lock'), path.join(gitDir, 'refs', 'heads', 'main.lock'), path.join(gitDir, 'packed-refs.lock')];
    for (const file of locks) writeFileSync(file, '');
    // Git refuses to write while they exist: what a killed demo left for the next iterate.
    expect(() => execFileSync('git', ['-C', dir, 'commit', '-q', '--allow-empty', '-m', 'x'], { stdio: 'pipe' })).toThrow(/index\.lock': File exists/);
    // A git process still at work in the repository (here one waiting on its input): its locks may be live.
    const busy = spawn('git', ['cat-file', '--batch'], { cwd: dir, stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      expect(await waitFor(() => gitProcessesIn(dir).includes(busy.pid as number), 5000)).toBe(true);
      expect(await clearStaleGitLocks(dir, gitDir, 300)).toEqual([]);
      expect(locks.every((file) => existsSync(file))).toBe(true);
    } finally {
      busy.stdin?.end();
    }
    expect(await waitFor(() => gitProcessesIn(dir).length === 0, 5000)).toBe(true);
    // The next command (it holds the workspace lock, so no agentdevel writes here) clears them.
    const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock });
    await workspace.close();
    expect(locks.filter((file) => existsSync(file))).toEqual([]);
    execFileSync('git', ['-C', dir, 'commit', '-q', '--allow-empty', '-m', 'x'], { stdio: 'pipe' });
  });

  it('count a git process as live wherever it works on the repository: a linked worktree outside the folder, its git directory, a symlinked path', async () => {
    const dir = await exampleWorkspace();
    const gitDir = path.join(dir, '.git');
    const outside = path.join(tempDir('agentdevel-worktree-'), 'elsewhere');
    execFileSync('git', ['-C', dir, 'worktree', 'add', '-q', '--detach', outside, 'main'], { stdio: 'pipe' });
    const link = path.join(tempDir('agentdevel-link-'), 'workspace-link');
    symlinkSync(dir, link);
    writeFileSync(path.join(gitDir, 'index.lock'), '');
    for (const [where, env] of [
      [outside, {}],
      [gitDir, {}],
      [tmpdir(), { GIT_DIR: gitDir }],
    ] as const) {
      const busy = spawn('git', ['cat-file', '--batch'], { cwd: where, env: { ...process.env, ...env }, stdio: ['pipe', 'ignore', 'ignore'] });
      try {
        // Seen from the workspace's path and from a symbolic link to it.
        expect(await waitFor(() => gitProcessesIn(repositoryPlaces(link, gitDir)).includes(busy.pid as number), 5000), where).toBe(true);
        expect(await clearStaleGitLocks(link, gitDir, 300), where).toEqual([]);
        expect(existsSync(path.join(gitDir, 'index.lock'))).toBe(true);
      } finally {
        busy.stdin?.end();
        await waitFor(() => busy.exitCode !== null, 5000);
      }
    }
    expect(await clearStaleGitLocks(link, gitDir, 2000)).toEqual([path.join(gitDir, 'index.lock')]);
  });
});
