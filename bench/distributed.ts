// Case-trials on workers against a local run. Run: npx tsx bench/distributed.ts
// Needs redis-server on PATH (apt-get install redis-server); it starts its own on a free port.
// The agent is a `command` agent that sleeps 200 ms per case (a shell script, so starting it
// costs little CPU: the figures measure the queue more than process start-up); 400 case-trials.
// It times `agentdevel run` (wall time of the whole command) locally at concurrency 8, then
// with --queue and 1, 2 and 4 worker processes at concurrency 8 each, each on a fresh clone of
// the workspace and an emptied Redis, so no result is reused.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../test/helpers/free-port.ts';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CASES = 400;
const SLEEP_MS = 200;
const CONCURRENCY = 8;
const WORKER_COUNTS = [1, 2, 4];

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const bin = path.join(repoRoot, 'bin', 'agentdevel.mjs');
const scratch = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-distributed-'));
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd: dir, stdio: 'pipe' });
const children: ChildProcess[] = [];
/** The key coordinator and workers share (AGENTDEVEL_QUEUE_KEY), fresh for each bench. */
const QUEUE_KEY = randomBytes(24).toString('hex');

function workspace(): string {
  const dir = path.join(scratch, 'origin');
  mkdirSync(path.join(dir, 'blueprints', 'sleeper'), { recursive: true });
  mkdirSync(path.join(dir, 'rubrics', 'sleep'), { recursive: true });
  const json = (file: string, value: unknown) => writeFileSync(path.join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
  json('agentdevel.config.json', {
    blueprint: 'sleeper',
    task: 'sleep',
    models: { agent: 'mock', critic: 'mock', diagnostician: 'mock', synthesizer: 'mock' },
    trials: 1,
    concurrency: CONCURRENCY,
  });
  json('blueprints/sleeper/blueprint.json', { runtime: 'command', command: ['sh', 'agent.sh'], timeoutMs: 30_000 });
  writeFileSync(
    path.join(dir, 'blueprints', 'sleeper', 'agent.sh'),
    // `read` and `printf` are shell built-ins: the only process a case starts besides sh is sleep.
    `read -r _case || true\nsleep ${SLEEP_MS / 1000}\nprintf '%s\\n' '{"type":"final","output":{"answer":42}}'\n`,
  );
  json('rubrics/sleep/task.json', { rubric: 'rubric.md', scorers: [{ kind: 'numeric', path: 'answer', expectedFromCase: 'expected.answer', tolerance: 0 }] });
  writeFileSync(path.join(dir, 'rubrics', 'sleep', 'rubric.md'), '# Sleep\n\nAnswer 42 after a short pause.\n');
  const cases = Array.from({ length: CASES }, (_, i) => JSON.stringify({ id: `case-${String(i).padStart(3, '0')}`, question: 'What is 40 + 2?', expected: { answer: 42 } }));
  writeFileSync(path.join(dir, 'rubrics', 'sleep', 'train.jsonl'), `${cases.join('\n')}\n`);
  writeFileSync(path.join(dir, 'rubrics', 'sleep', 'test.jsonl'), `${cases.slice(0, 5).join('\n')}\n`);
  writeFileSync(path.join(dir, '.gitignore'), '.agentdevel/\ntraces/\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'bench workspace');
  return dir;
}

let clones = 0;
function freshClone(origin: string): string {
  const dir = path.join(scratch, `clone-${(clones += 1)}`);
  execFileSync('git', ['clone', '-q', origin, dir], { stdio: 'pipe' });
  return dir;
}

function timedRun(dir: string, extra: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [bin, 'run', '-C', dir, '--json', ...extra], { encoding: 'utf8', env: { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY }, timeout: 600_000 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0) throw new Error(`run failed (exit ${result.status}): ${result.stderr}`);
  const output = JSON.parse(result.stdout) as { graded: number; passed: number; reused: boolean };
  if (output.graded !== CASES || output.passed !== CASES || output.reused) throw new Error(`unexpected run: ${result.stdout}`);
  return seconds;
}

function startWorker(url: string, index: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [bin, 'worker', '--queue', url, '--concurrency', String(CONCURRENCY), '--cache', path.join(scratch, `cache-${index}`)], {
    env: { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a worker did not start within 30 s')), 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('taking case-trials')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

try {
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', scratch], { stdio: 'ignore' });
  children.push(redis);
  const url = `redis://127.0.0.1:${port}`;
  const cli = (...args: string[]) => spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();
  for (let i = 0; i < 100 && cli('ping') !== 'PONG'; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));

  const origin = workspace();
  // Figures from a machine shared with other work are noisy: the load average says how shared it was.
  const load = () => loadavg()[0]?.toFixed(1) ?? '?';
  console.log(`distributed: ${CASES} case-trials of a command agent sleeping ${SLEEP_MS} ms; ${cpus().length} cores, load average ${load()}; wall time of \`agentdevel run\``);
  const local = timedRun(freshClone(origin), []);
  console.log(`| setup | wall time | speed-up |\n| --- | --- | --- |\n| local, concurrency ${CONCURRENCY} | ${local.toFixed(1)} s | 1.0× |`);
  for (const count of WORKER_COUNTS) {
    cli('flushall');
    const workers = await Promise.all(Array.from({ length: count }, (_, i) => startWorker(url, i)));
    // The first run of a worker checks the version out; a warm-up on another clone would hide that, so none is made.
    const seconds = timedRun(freshClone(origin), ['--queue', url]);
    console.log(`| ${count} worker${count === 1 ? '' : 's'} × concurrency ${CONCURRENCY} | ${seconds.toFixed(1)} s | ${(local / seconds).toFixed(1)}× |`);
    await Promise.all(workers.map(stop));
  }
  console.log(`load average at the end: ${load()}`);
} finally {
  await Promise.all(children.map(stop));
  rmSync(scratch, { recursive: true, force: true });
}
