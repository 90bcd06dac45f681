// The library entry point (`import { run, gate, compare } from 'agentdevel'`) as a program uses
// it: a Node process started in the folder above the workspace, naming it by a relative `dir`.
// Every path it is given resolves like the CLI's: against that process's current directory.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { cli, git, repoRoot, tempDir } from '../helpers/workspace.ts';

const entry = pathToFileURL(path.join(repoRoot, 'lib', 'index.mjs')).href;

/** Runs `body` (an ES module's top-level code, with the library's functions in scope) in `cwd`; its last line of stdout is JSON. */
function program(cwd: string, body: string, env: Record<string, string> = {}): { code: number; result: unknown; stderr: string } {
  const source = `import { run, gate, compare, iterate } from ${JSON.stringify(entry)};\n${body}`;
  const done = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CI: 'true', GITHUB_STEP_SUMMARY: '', ...env } });
  const last = done.stdout.trim().split('\n').at(-1) ?? '';
  return { code: done.status ?? -1, result: last ? (JSON.parse(last) as unknown) : null, stderr: done.stderr };
}

let parent: string;

beforeAll(() => {
  parent = tempDir('agentdevel-library-');
  const ws = path.join(parent, 'ws');
  mkdirSync(ws);
  git(ws, 'init', '-q', '--initial-branch=main');
  const init = cli(['init', '--runtime', 'command', '-C', ws]);
  expect(init.code, init.stderr).toBe(0);
  git(ws, 'add', '-A');
  git(ws, 'commit', '-qm', 'agentdevel workspace');
  // A candidate that breaks subtraction: sub-1 regresses.
  git(ws, 'checkout', '-q', '-b', 'subtract-wrong');
  const agent = path.join(ws, 'blueprints/my-agent/agent.mjs');
  writeFileSync(agent, readFileSync(agent, 'utf8').replace("'-': (x, y) => x - y", "'-': (x, y) => x + y"));
  git(ws, 'commit', '-qam', 'subtract by adding');
  git(ws, 'checkout', '-q', 'main');
}, 120_000);

describe('the library, called from the folder above the workspace with a relative dir', () => {
  it('run resolves dir, cases and junit against the current directory, like `agentdevel -C ws run --case … --junit …`', () => {
    const { code, result, stderr } = program(parent, `console.log(JSON.stringify(await run({ dir: 'ws', cases: ['add-1', 'sub-1'], junit: 'out/run.xml' })));`);
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ passRate: 1, failing: [], simulated: false, junit: path.join(parent, 'out', 'run.xml') });
    // Only the two cases named ran.
    expect(readFileSync(path.join(parent, 'out', 'run.xml'), 'utf8')).toMatch(/<testsuite name="agentdevel\.my-agent" tests="2" failures="0"/);
    expect(existsSync(path.join(parent, 'ws', 'out'))).toBe(false);
  });

  it('gate writes the summary, JUnit and reports where it is told, relative to the current directory', () => {
    const { code, result, stderr } = program(
      parent,
      `const g = await gate({ dir: 'ws', candidate: 'subtract-wrong', summary: 'out/summary.md', junit: 'out/gate.xml', reportDir: 'out/reports' });
console.log(JSON.stringify({ outcome: g.outcome, p2f: g.decision.p2f, summary: g.summary, junit: g.junit, reports: g.reports }));`,
    );
    expect(code, stderr).toBe(0);
    const gated = result as { outcome: string; p2f: string[]; summary: string[]; junit: string; reports: string[] };
    expect(gated).toMatchObject({ outcome: 'rejected', p2f: ['sub-1'], summary: [path.join(parent, 'out', 'summary.md')], junit: path.join(parent, 'out', 'gate.xml') });
    expect(readFileSync(path.join(parent, 'out', 'summary.md'), 'utf8')).toMatch(/^### agentdevel gate: ❌ `subtract-wrong` \(`[0-9a-f]{10}`\) rejected/);
    expect(readFileSync(path.join(parent, 'out', 'gate.xml'), 'utf8')).toMatch(/<testcase name="sub-1"[^>]*>\s*<failure [^>]*type="regression"/);
    for (const file of gated.reports) expect(path.relative(path.join(parent, 'out', 'reports'), file)).toMatch(/^subtract-wrong-[0-9a-f]{10}\//);
  });

  it('compare opens the same workspace; a dir that does not exist is named as the CLI names it', () => {
    const { code, result, stderr } = program(
      parent,
      `const first = await run({ dir: 'ws' });
const decision = await compare({ dir: 'ws', baseline: first.runId, candidate: first.runId });
const missing = await run({ dir: 'nowhere' }).then(() => null, (error) => ({ code: error.code, message: error.message }));
console.log(JSON.stringify({ verdict: decision.verdict, p2f: decision.p2f, missing }));`,
    );
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ p2f: [], missing: { code: 'USAGE', message: `-C nowhere: the folder ${path.join(parent, 'nowhere')} does not exist` } });
  });
});

describe('the library, when the model API cannot be reached', () => {
  it('gate rejects with the code, message and hint the CLI prints for the same failure (the requirements reviewer, outside a run)', async () => {
    const ws = path.join(tempDir('agentdevel-library-down-'), 'ws');
    mkdirSync(ws);
    git(ws, 'init', '-q', '--initial-branch=main');
    expect(cli(['init', '--runtime', 'command', '--provider', 'anthropic', '-C', ws]).code).toBe(0);
    // The agent is the command and the critic grades nothing, so the one model call is the
    // review of the requirements layer, asked once the flips accept the fix; no retries.
    const configFile = path.join(ws, 'agentdevel.config.json');
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(configFile, JSON.stringify({ ...config, critic: 'off', anthropic: { maxRetries: 0 }, gate: { layers: [{ layer: 'flips' }, { layer: 'requirements' }] } }, null, 2));
    const rubric = path.join(ws, 'rubrics/arithmetic/rubric.md');
    writeFileSync(rubric, `${readFileSync(rubric, 'utf8')}\n\`\`\`json requirements\n[{ "id": "exact", "text": "The answer is the exact number." }]\n\`\`\`\n`);
    const agent = path.join(ws, 'blueprints/my-agent/agent.mjs');
    const correct = readFileSync(agent, 'utf8');
    writeFileSync(agent, correct.replace("'-': (x, y) => x - y", "'-': (x, y) => x + y"));
    git(ws, 'add', '-A');
    git(ws, 'commit', '-qm', 'subtraction broken; a requirement to review');
    git(ws, 'checkout', '-q', '-b', 'fix');
    writeFileSync(agent, correct);
    git(ws, 'commit', '-qam', 'subtract');
    git(ws, 'checkout', '-q', 'main');
    // Nothing listens on this port: every connection is refused.
    const env = { ANTHROPIC_BASE_URL: `http://127.0.0.1:${await freePort()}`, ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' };

    const byCli = cli(['gate', '--candidate', 'fix', '--json', '-C', ws], { env });
    expect(byCli.code, byCli.stderr).toBe(3);
    const printed = (JSON.parse(byCli.stdout.trim().split('\n').at(-1) ?? '') as { error: { code: string; message: string; hint: string } }).error;
    expect(printed).toMatchObject({ code: 'MODEL_UNAVAILABLE', message: expect.stringMatching(/^the reviewer: the model API could not be reached/) });

    const byLibrary = program(
      path.dirname(ws),
      `const failure = await gate({ dir: 'ws', candidate: 'fix' }).then(() => null, (error) => ({ name: error.name, code: error.code, message: error.message, hint: error.hint, exitCode: error.exitCode }));
console.log(JSON.stringify(failure));`,
      env,
    );
    expect(byLibrary.code, byLibrary.stderr).toBe(0);
    expect(byLibrary.result).toEqual({ name: 'AgentdevelError', code: printed.code, message: printed.message, hint: printed.hint, exitCode: 3 });
  }, 120_000);
});
