// Case-trials on workers against a local run: wall time, speed-up, and the CPU each case-trial
// costs, split over the coordinator, the workers and Redis.
// Run: npx tsx bench/distributed.ts [--sleep 1000,200] [--cases 400] [--workers 1,2,4] [--concurrency 8]
// Needs redis-server on PATH (apt-get install redis-server); it starts its own on a free port.
//
// The agent is a `command` agent (`sh`) that sleeps a while per case (`sleep`, the only process
// a case starts besides sh). For each sleep, it runs `agentdevel run` (the coordinator) locally at
// --concurrency, then with --queue and 1, 2 and 4 worker processes at --concurrency each, each
// on a fresh clone of the workspace and an emptied Redis, so no result is reused.
//
// CPU per case-trial (bench/lib/process-cpu.ts says how each is read):
// - coordinator: the `agentdevel run` process and all its descendants (this process's reaped
//   children, from start to exit, start-up included);
// - workers: each worker process and its descendants (spawners, every agent's sh and sleep),
//   from the moment it says it takes case-trials (its start-up left out: a worker serves many
//   runs) to the end of the run, summed over the workers;
// - Redis: `INFO cpu` (user + sys) over the run;
// - the queue's own work: the main threads of the coordinator (reported at its exit through
//   AGENTDEVEL_CPU_REPORT) and of the workers (their schedstat over the run): what runs the
//   queue, the grading and the records, without the spawners, the agents, V8's helper threads
//   or the thread pool.
// Figures from a machine shared with other work are noisy: the load average is printed beside them.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../test/helpers/free-port.ts';
import { agentdevelBin, load } from './lib/measure.ts';
import { mainThreadMs, reapedChildrenMs, redisCpuMs, treeCpu } from './lib/process-cpu.ts';

const { values } = parseArgs({
  options: {
    sleep: { type: 'string', default: '1000,200' },
    cases: { type: 'string', default: '400' },
    workers: { type: 'string', default: '1,2,4' },
    concurrency: { type: 'string', default: '8' },
  },
});
const list = (text: string) => text.split(',').map((x) => Number(x.trim()));
const CASES = Number(values.cases);
const SLEEPS_MS = list(values.sleep);
const CONCURRENCY = Number(values.concurrency);
const WORKER_COUNTS = list(values.workers);

const scratch = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-distributed-'));
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd: dir, stdio: 'pipe' });
const children: ChildProcess[] = [];
/** The key coordinator and workers share (AGENTDEVEL_QUEUE_KEY), fresh for each bench. */
const QUEUE_KEY = randomBytes(24).toString('hex');
const env = { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY };

function workspace(sleepMs: number): string {
  const dir = path.join(scratch, `origin-${sleepMs}`);
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
    `read -r _case || true\nsleep ${sleepMs / 1000}\nprintf '%s\\n' '{"type":"final","output":{"answer":42}}'\n`,
  );
  json('rubrics/sleep/task.json', { rubric: 'rubric.md', scorers: [{ kind: 'numeric', path: 'answer', expectedFromCase: 'expected.answer', tolerance: 0 }] });
  writeFileSync(path.join(dir, 'rubrics', 'sleep', 'rubric.md'), '# Sleep\n\nAnswer 42 after a short pause.\n');
  const cases = Array.from({ length: CASES }, (_, i) => JSON.stringify({ id: `case-${String(i).padStart(4, '0')}`, question: 'What is 40 + 2?', expected: { answer: 42 } }));
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

interface CoordinatorCost {
  readonly wallS: number;
  /** The process and its descendants. */
  readonly treeMs: number;
  readonly mainThreadMs: number;
}

/** Runs `agentdevel run` to its end; its CPU is this process's reaped children's, before and after. */
async function coordinatorRun(dir: string, extra: string[]): Promise<CoordinatorCost> {
  const report = path.join(scratch, `cpu-${clones}-${extra.length}.jsonl`);
  const before = reapedChildrenMs();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [agentdevelBin, 'run', '-C', dir, '--json', ...extra], { env: { ...env, AGENTDEVEL_CPU_REPORT: report }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const wallS = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) throw new Error(`run failed (exit ${code}): ${stderr.slice(-2000)}`);
  const output = JSON.parse(stdout) as { graded: number; passed: number; reused: boolean };
  if (output.graded !== CASES || output.passed !== CASES || output.reused) throw new Error(`unexpected run: ${stdout}`);
  const reported = JSON.parse(readFileSync(report, 'utf8').trim().split('\n').at(-1) as string) as { mainThreadMs: number | null };
  return { wallS, treeMs: reapedChildrenMs() - before, mainThreadMs: reported.mainThreadMs ?? Number.NaN };
}

/** A worker's CPU, ms: its tree, and the parts of it. */
interface WorkerCpu {
  readonly treeMs: number;
  /** The worker process (all its threads). */
  readonly rootMs: number;
  readonly mainMs: number;
  /** Its spawners (its live children), and the agents below them. */
  readonly spawnersMs: number;
  readonly agentsMs: number;
}

function workerCpu(pid: number): WorkerCpu {
  const tree = treeCpu(pid);
  return {
    treeMs: tree?.totalMs ?? Number.NaN,
    rootMs: tree?.rootMs ?? Number.NaN,
    mainMs: mainThreadMs(pid) ?? Number.NaN,
    spawnersMs: tree?.liveChildrenMs ?? Number.NaN,
    agentsMs: tree?.grandchildrenMs ?? Number.NaN,
  };
}

const minus = (a: WorkerCpu, b: WorkerCpu): WorkerCpu => ({
  treeMs: a.treeMs - b.treeMs,
  rootMs: a.rootMs - b.rootMs,
  mainMs: a.mainMs - b.mainMs,
  spawnersMs: a.spawnersMs - b.spawnersMs,
  agentsMs: a.agentsMs - b.agentsMs,
});

interface WorkerProbe {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Its CPU when it said it takes case-trials. */
  readonly ready: WorkerCpu;
}

function startWorker(url: string, index: number): Promise<WorkerProbe> {
  const child = spawn(process.execPath, [agentdevelBin, 'worker', '--queue', url, '--concurrency', String(CONCURRENCY), '--cache', path.join(scratch, `cache-${clones}-${index}`)], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a worker did not start within 60 s')), 60_000);
    let said = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (said.includes('taking case-trials')) return;
      said += chunk.toString();
      if (!said.includes('taking case-trials')) return;
      clearTimeout(timer);
      const pid = child.pid as number;
      resolve({ child, pid, ready: workerCpu(pid) });
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

const perJob = (ms: number) => (ms / CASES).toFixed(2);

interface Row {
  readonly setup: string;
  readonly wallS: number;
  readonly coordinator: CoordinatorCost;
  readonly workers: WorkerCpu | null;
  readonly redisMs: number | null;
}

function printRow(row: Row, localWallS: number): void {
  const w = row.workers;
  const total = row.coordinator.treeMs + (w?.treeMs ?? 0);
  const queueMain = row.coordinator.mainThreadMs + (w?.mainMs ?? 0);
  const cells = [
    row.setup,
    `${row.wallS.toFixed(1)} s`,
    `${(localWallS / row.wallS).toFixed(2)}×`,
    perJob(total),
    `${perJob(row.coordinator.treeMs)} (${perJob(row.coordinator.mainThreadMs)})`,
    w ? `${perJob(w.treeMs)} (${perJob(w.mainMs)}; ${perJob(w.rootMs - w.mainMs)}; ${perJob(w.spawnersMs)}; ${perJob(w.agentsMs)}; ${perJob(w.treeMs - w.rootMs - w.spawnersMs - w.agentsMs)})` : '–',
    row.redisMs === null ? '–' : perJob(row.redisMs),
    perJob(queueMain),
    load(),
  ];
  console.log(`| ${cells.join(' | ')} |`);
}

try {
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', scratch], { stdio: 'ignore' });
  children.push(redis);
  const url = `redis://127.0.0.1:${port}`;
  const cli = (...args: string[]) => spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();
  for (let i = 0; i < 100 && cli('ping') !== 'PONG'; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  const redisNow = () => redisCpuMs(cli('info', 'cpu'));

  console.log(`distributed: ${CASES} case-trials of a \`command\` agent (sh + sleep); ${cpus().length} cores; load average ${load()} at the start`);
  console.log('CPU in ms per case-trial: total = coordinator + workers, each with all its descendants; in brackets: the coordinator\'s main thread;');
  console.log('the workers\' main threads; their other threads (V8\'s helpers, the thread pool); their spawners; the agents (sh, sleep); other processes (git).');
  console.log('queue\'s own work = the main threads of the coordinator and the workers. Redis apart.');
  const summary: string[] = [];
  for (const sleepMs of SLEEPS_MS) {
    const origin = workspace(sleepMs);
    console.log(`\nagent sleeps ${sleepMs} ms; workers and the local run at concurrency ${CONCURRENCY}`);
    console.log('| setup | wall | speed-up | CPU/job total | coordinator (main) | workers (main; other threads; spawners; agents; other) | Redis | queue\'s own work | load |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    const local = await coordinatorRun(freshClone(origin), []);
    printRow({ setup: `local, concurrency ${CONCURRENCY}`, wallS: local.wallS, coordinator: local, workers: null, redisMs: null }, local.wallS);
    for (const count of WORKER_COUNTS) {
      cli('flushall');
      const workers = await Promise.all(Array.from({ length: count }, (_, i) => startWorker(url, i)));
      const redisBefore = redisNow();
      // The first run of a worker checks the version out; a warm-up on another clone would hide that, so none is made.
      const coordinator = await coordinatorRun(freshClone(origin), ['--queue', url]);
      const redisMs = redisNow() - redisBefore;
      // Read while every worker is alive and idle again: their spawners and agents are all in the tree.
      const spent = workers.map((w) => minus(workerCpu(w.pid), w.ready));
      const total = spent.reduce((sum, s) => ({
        treeMs: sum.treeMs + s.treeMs,
        rootMs: sum.rootMs + s.rootMs,
        mainMs: sum.mainMs + s.mainMs,
        spawnersMs: sum.spawnersMs + s.spawnersMs,
        agentsMs: sum.agentsMs + s.agentsMs,
      }));
      const row: Row = { setup: `${count} worker${count === 1 ? '' : 's'} × ${CONCURRENCY}`, wallS: coordinator.wallS, coordinator, workers: total, redisMs };
      printRow(row, local.wallS);
      await Promise.all(workers.map((w) => stop(w.child)));
      if (count === Math.max(...WORKER_COUNTS)) {
        const total = (coordinator.treeMs + row.workers!.treeMs) / CASES;
        const own = (coordinator.mainThreadMs + row.workers!.mainMs) / CASES;
        summary.push(`sleep ${sleepMs} ms, ${count} workers: speed-up ${(local.wallS / coordinator.wallS).toFixed(2)}×, CPU/job ${total.toFixed(2)} ms (target ≤ 5), queue's own work ${own.toFixed(2)} ms (target ≤ 2), Redis ${(redisMs / CASES).toFixed(2)} ms`);
      }
    }
  }
  console.log(`\nload average at the end: ${load()}`);
  for (const line of summary) console.log(`summary: ${line}`);
} finally {
  await Promise.all(children.map(stop));
  rmSync(scratch, { recursive: true, force: true });
}
