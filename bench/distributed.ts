// Case-trials on workers against a local run: wall time, speed-up, and the CPU each case-trial
// costs, split over the coordinator, the workers and Redis.
// Run: npx tsx bench/distributed.ts [--sleep 1000,200] [--cases 400] [--workers 1,2,4] [--concurrency 8] [--repeat 1]
//      [--serving, with one --workers count]
// Needs redis-server and redis-cli on PATH (apt-get install redis-server); it starts its own on a free port
// (bench/lib/redis-server.ts), which ends with the bench.
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
//   runs), summed over the workers;
// - each setup runs twice: first a short run of one case-trial per slot (fresh workers check the
//   version out, start its runtime and spawners, unless they prepared it as they started: the
//   queue is emptied between setups but the version published last stays, so the workers of
//   every setup after the first start warm), then the full run. The difference tells the
//   fixed costs (the coordinator's start-up, the workers' set-up) from the cost per case-trial;
//   "all in" is what one run of --cases costs on workers new to the version (fresh ones, or with
//   --serving, serving ones), "per more" what each further
//   case-trial adds. Workers that start after a run of the same version (a later setup, or a
//   later repeat of a single sleep) prepared it before their first job (checkout, runtime,
//   spawners: the version published last), as warm workers do; the others started fresh. The
//   summary says which;
// - without agents: the same, less the agents' own CPU (every sh and sleep) on both sides. They
//   are the same work in a local run and on a worker, and most of the difference between two
//   identical runs (their CPU moves by a few tenths of a millisecond per case-trial from one run
//   to the next): what is left is what runs them. A worker's agents are read below its live
//   spawners, exactly; a local run's, below its spawners, sampled while it runs (AGENT_SAMPLE_MS);
// - Redis: `INFO cpu` (user + sys) over the run;
// - the queue's own work: the main threads of the coordinator (reported at its exit through
//   AGENTDEVEL_CPU_REPORT) and of the workers (their schedstat over the run): what runs the
//   queue, the grading and the records, without the spawners, the agents, V8's helper threads
//   or the thread pool.
// - --serving (one --workers count): workers as a team runs them, processes that serve many
//   runs. They are started once and warmed by runs of --cases case-trials of 4 versions used
//   nowhere else (as many as a worker keeps), and each run brings a version new to them (a commit
//   to the workspace, as a new release candidate is): its checkout, runtime and spawners are set
//   up at its first jobs, and the least recently used version evicted, all counted, "all in". Without it, every setup starts new worker processes, whose first run also
//   pays for V8 compiling the code its jobs run (in its helper threads, most of it).
// Figures from a machine shared with other work are noisy: the load average is printed beside them.
// CPU figures of identical runs on a shared 2-core machine differ by a fifth, and a figure
// "beyond the local run's" is the difference of two of them: --repeat N runs every setup N
// times (each repeat with its own local run) and the summary gives each figure's median and range.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startBenchRedis, type BenchRedis } from './lib/redis-server.ts';
import { agentdevelBin, load, median } from './lib/measure.ts';
import { belowLiveChildren, mainThreadMs, reapedChildrenMs, redisCpuMs, treeCpu, type TreeCpu } from './lib/process-cpu.ts';

const { values } = parseArgs({
  options: {
    sleep: { type: 'string', default: '1000,200' },
    cases: { type: 'string', default: '400' },
    workers: { type: 'string', default: '1,2,4' },
    concurrency: { type: 'string', default: '8' },
    repeat: { type: 'string', default: '1' },
    serving: { type: 'boolean', default: false },
  },
});
const list = (text: string) => text.split(',').map((x) => Number(x.trim()));
const CASES = Number(values.cases);
const SLEEPS_MS = list(values.sleep);
const CONCURRENCY = Number(values.concurrency);
const WORKER_COUNTS = list(values.workers);
const REPEATS = Math.max(1, Number(values.repeat));
/** Workers that serve many runs: started once, warmed by runs of other versions, and given a new version at every run. */
const SERVING = values.serving;
/** Versions a worker keeps (warm-checkouts.ts, worker.ts): the warm-up runs as many. */
const WARM_VERSIONS = 4;
if (SERVING && WORKER_COUNTS.length !== 1) throw new Error('--serving takes one --workers count (idle workers of another count would take jobs too)');

const scratch = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-distributed-'));
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd: dir, stdio: 'pipe' });
const children: ChildProcess[] = [];
let redis: BenchRedis | null = null;
/** The key coordinator and workers share (AGENTDEVEL_QUEUE_KEY), fresh for each bench. */
const QUEUE_KEY = randomBytes(24).toString('hex');
const env = { ...process.env, CI: 'true', AGENTDEVEL_QUEUE_KEY: QUEUE_KEY };

function workspace(sleepMs: number, name = `origin-${sleepMs}`): string {
  const dir = path.join(scratch, name);
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

/** A new version of the workspace (a new tree): as a new release candidate is, checked out and set up afresh by every worker. */
function newVersion(origin: string, label: string): void {
  writeFileSync(path.join(origin, 'blueprints', 'sleeper', 'version.txt'), `${label}\n`);
  git(origin, 'add', '-A');
  git(origin, 'commit', '-qm', label);
}

let clones = 0;
function freshClone(origin: string): string {
  const dir = path.join(scratch, `clone-${(clones += 1)}`);
  execFileSync('git', ['clone', '-q', origin, dir], { stdio: 'pipe' });
  return dir;
}

interface CoordinatorCost {
  readonly wallS: number;
  /** When the command was started and when it exited, ms since the epoch (the clock BullMQ stamps jobs with). */
  readonly startedAtMs: number;
  readonly endedAtMs: number;
  /** The process and its descendants. */
  readonly treeMs: number;
  readonly mainThreadMs: number;
  /**
   * Of the tree, what ran below its spawners: the agents (sh and sleep). Sampled while a local
   * run goes on (every AGENT_SAMPLE_MS); 0 for a run on the queue, whose agents run on the workers.
   */
  readonly agentsMs: number;
}

/**
 * How often a local run's spawners are read for the agents below them. The agents a spawner
 * reaps after the last reading, in its last moments, are missed: at most a round of --concurrency
 * agents, some 20 ms. Missed agents raise the local figure without agents, so they would lower
 * the figure beyond it, by at most 0.05 ms per case-trial: in the product's favour, and said
 * beside the figure. A reading never misses a process it has seen live (belowLiveChildren reads
 * a process's children before its own counters); it may count one twice, against the product.
 */
const AGENT_SAMPLE_MS = 20;

/** Runs `agentdevel run` to its end; its CPU is this process's reaped children's, before and after. */
async function coordinatorRun(dir: string, extra: string[], cases = CASES): Promise<CoordinatorCost> {
  const report = path.join(scratch, `cpu-${clones}-${extra.length}.jsonl`);
  const before = reapedChildrenMs();
  const startedAtMs = Date.now();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [agentdevelBin, 'run', '-C', dir, '--json', ...extra], { env: { ...env, AGENTDEVEL_CPU_REPORT: report }, stdio: ['ignore', 'pipe', 'pipe'] });
  // A local run's agents, below its spawners (git processes, the only other children, left out).
  const agents = new Map<number, number>();
  const sampler = extra.includes('--queue')
    ? null
    : setInterval(() => {
        for (const [pid, below] of belowLiveChildren(child.pid as number)) if (below.name !== 'git') agents.set(pid, Math.max(agents.get(pid) ?? 0, below.ms));
      }, AGENT_SAMPLE_MS);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (sampler) clearInterval(sampler);
  const wallS = Number(process.hrtime.bigint() - started) / 1e9;
  const endedAtMs = Date.now();
  if (code !== 0) throw new Error(`run failed (exit ${code}): ${stderr.slice(-2000)}`);
  const output = JSON.parse(stdout) as { graded: number; passed: number; reused: boolean };
  if (output.graded !== cases || output.passed !== cases || output.reused) throw new Error(`unexpected run: ${stdout}`);
  const reported = JSON.parse(readFileSync(report, 'utf8').trim().split('\n').at(-1) as string) as { mainThreadMs: number | null };
  const agentsMs = [...agents.values()].reduce((sum, ms) => sum + ms, 0);
  return { wallS, startedAtMs, endedAtMs, treeMs: reapedChildrenMs() - before, mainThreadMs: reported.mainThreadMs ?? Number.NaN, agentsMs };
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
  /** The same by spawner; empty for a difference of two readings. */
  readonly byChild: TreeCpu['byChild'];
}

function workerCpu(pid: number): WorkerCpu {
  const tree = treeCpu(pid);
  return {
    treeMs: tree?.totalMs ?? Number.NaN,
    rootMs: tree?.rootMs ?? Number.NaN,
    mainMs: mainThreadMs(pid) ?? Number.NaN,
    spawnersMs: tree?.liveChildrenMs ?? Number.NaN,
    agentsMs: tree?.grandchildrenMs ?? Number.NaN,
    byChild: tree?.byChild ?? new Map(),
  };
}

/**
 * What a worker spent between two readings. Spawners and agents are taken spawner by spawner: one
 * that ended between them (its runtime closed, as a worker does when it evicts a version) took
 * its whole past into the worker's reaped CPU; its agents ran nothing since the earlier reading
 * (an evicted runtime is idle), and what it spent closing is left in the worker's "other". The
 * whole tree is unaffected: what moves is not new CPU.
 */
function minus(a: WorkerCpu, b: WorkerCpu): WorkerCpu {
  let spawnersMs = 0;
  let agentsMs = 0;
  for (const [child, now] of a.byChild) {
    const then = b.byChild.get(child);
    spawnersMs += now.selfMs - (then?.selfMs ?? 0);
    agentsMs += now.belowMs - (then?.belowMs ?? 0);
  }
  return { treeMs: a.treeMs - b.treeMs, rootMs: a.rootMs - b.rootMs, mainMs: a.mainMs - b.mainMs, spawnersMs, agentsMs, byChild: new Map() };
}

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

const ms = (value: number) => `${Math.round(value)} ms`;
const perJob = (value: number) => (value / CASES).toFixed(2);
/** The first `count` cases, as `--case` options: a short run first, to tell a run's fixed costs from its cost per case-trial. */
const firstCases = (count: number) => Array.from({ length: count }, (_, i) => ['--case', `case-${String(i).padStart(4, '0')}`]).flat();

interface Measured {
  readonly setup: string;
  readonly wallS: number;
  /** Case-trials of the short run. */
  readonly short: number;
  /** The coordinator of the short run and of the full run (same start-up, CASES - short more case-trials). */
  readonly coordinatorShort: CoordinatorCost;
  readonly coordinator: CoordinatorCost;
  /** The workers over the short run (their set-up for the version: checkout, runtime, spawners, an eviction when serving; and `short` case-trials), and over the full run, set up. */
  readonly workersShort: WorkerCpu | null;
  readonly workers: WorkerCpu | null;
  readonly redisMs: number | null;
}

/**
 * CPU per case-trial, ms: per case-trial more (what each adds once everything is started and
 * set up), and all in (one run of CASES case-trials on workers new to the version, start-up and set-up
 * included); the fixed costs: the coordinator's start-up and the workers' set-up.
 */
function costs(m: Measured) {
  const more = CASES - m.short;
  const coordinatorPer = (m.coordinator.treeMs - m.coordinatorShort.treeMs) / more;
  const coordinatorMainPer = (m.coordinator.mainThreadMs - m.coordinatorShort.mainThreadMs) / more;
  const workersPer = (m.workers?.treeMs ?? 0) / CASES;
  const workersMainPer = (m.workers?.mainMs ?? 0) / CASES;
  const startUpMs = m.coordinator.treeMs - CASES * coordinatorPer;
  const setUpMs = (m.workersShort?.treeMs ?? 0) - m.short * workersPer;
  const setUpMainMs = (m.workersShort?.mainMs ?? 0) - m.short * workersMainPer;
  // The same with the agents' own CPU left out (sh and sleep: the same work wherever they run,
  // and most of the noise between runs), so what is left is what runs them.
  const bareCoordinatorPer = (m.coordinator.treeMs - m.coordinator.agentsMs - (m.coordinatorShort.treeMs - m.coordinatorShort.agentsMs)) / more;
  const bareWorkersPer = m.workers ? (m.workers.treeMs - m.workers.agentsMs) / CASES : 0;
  const bareSetUpMs = m.workersShort ? m.workersShort.treeMs - m.workersShort.agentsMs - m.short * bareWorkersPer : 0;
  return {
    coordinatorPer,
    coordinatorMainPer,
    startUpMs,
    setUpMs,
    perMore: coordinatorPer + workersPer,
    allIn: (m.coordinator.treeMs + setUpMs) / CASES + workersPer,
    bare: { perMore: bareCoordinatorPer + bareWorkersPer, allIn: (m.coordinator.treeMs - m.coordinator.agentsMs + bareSetUpMs) / CASES + bareWorkersPer },
    ownPerMore: coordinatorMainPer + workersMainPer,
    ownAllIn: (m.coordinator.mainThreadMs + setUpMainMs) / CASES + workersMainPer,
  };
}

function printRow(m: Measured, localWallS: number): void {
  const w = m.workers;
  const cost = costs(m);
  const cells = [
    m.setup,
    `${m.wallS.toFixed(1)} s`,
    `${(localWallS / m.wallS).toFixed(2)}×`,
    cost.allIn.toFixed(2),
    cost.perMore.toFixed(2),
    `${cost.bare.allIn.toFixed(2)}; ${cost.bare.perMore.toFixed(2)}`,
    `${ms(cost.startUpMs)}; ${cost.coordinatorPer.toFixed(2)} (${cost.coordinatorMainPer.toFixed(2)})`,
    w ? `${ms(cost.setUpMs)}; ${perJob(w.treeMs)} (${perJob(w.mainMs)}; ${perJob(w.rootMs - w.mainMs)}; ${perJob(w.spawnersMs)}; ${perJob(w.agentsMs)}; ${perJob(w.treeMs - w.rootMs - w.spawnersMs - w.agentsMs)})` : '–',
    m.redisMs === null ? '–' : perJob(m.redisMs),
    `${cost.ownAllIn.toFixed(2)}; ${cost.ownPerMore.toFixed(2)}`,
    load(),
  ];
  console.log(`| ${cells.join(' | ')} |`);
}

/**
 * Where a queued run's wall time went, from the times BullMQ stamps on each job (a worker's
 * clock; here, the same machine's): from the command's start to the first job taken; how long a
 * job of the first round took (the run's every slot starting at once) and a later one; and from
 * the last job done to the command's exit.
 */
function wallTimeline(jobs: ReadonlyArray<{ readonly processedOn: number; readonly finishedOn: number }>, run: CoordinatorCost, slots: number): string {
  const byStart = [...jobs].sort((a, b) => a.processedOn - b.processedOn);
  const took = (list: typeof jobs) => median(list.map((job) => job.finishedOn - job.processedOn));
  const firstTaken = (byStart[0]?.processedOn ?? Number.NaN) - run.startedAtMs;
  const lastDone = Math.max(...jobs.map((job) => job.finishedOn));
  return (
    `  (wall time: the first job taken ${ms(firstTaken)} after the command started; a job of the first round (${slots} slots at once) took ` +
    `${ms(took(byStart.slice(0, slots)))}, a later one ${ms(took(byStart.slice(slots)))} (medians); the command exited ${ms(run.endedAtMs - lastDone)} after the last job was done)`
  );
}

const sumCpu = (all: readonly WorkerCpu[]): WorkerCpu =>
  all.reduce((sum, s) => ({
    treeMs: sum.treeMs + s.treeMs,
    rootMs: sum.rootMs + s.rootMs,
    mainMs: sum.mainMs + s.mainMs,
    spawnersMs: sum.spawnersMs + s.spawnersMs,
    agentsMs: sum.agentsMs + s.agentsMs,
    byChild: new Map(),
  }));

try {
  redis = await startBenchRedis(scratch);
  const { url, cli } = redis;
  const redisNow = () => redisCpuMs(cli('info', 'cpu'));

  console.log(`distributed: ${CASES} case-trials of a \`command\` agent (sh + sleep); node ${process.version}; ${cpus().length} cores; load average ${load()} at the start`);
  console.log('CPU in ms per case-trial, each process with all its descendants. "all in": the coordinator and the workers over');
  console.log(`one run of ${CASES} case-trials on ${SERVING ? 'workers the version is new to' : 'fresh workers'}, start-up and set-up included; "per more": what each further`);
  console.log('case-trial adds, once started and set up (a short run of one case-trial per slot first tells the two apart).');
  console.log('coordinator: its start-up; per case-trial (its main thread). workers: their set-up (checkout, runtime, spawners);');
  console.log('per case-trial (main threads; other threads: V8\'s helpers, the thread pool; spawners; agents: sh and sleep;');
  console.log(`other processes: git${SERVING ? ', spawners that ended' : ''}). queue's own work: the main threads of the coordinator and the workers (all in; per more).`);
  console.log('without agents: less the CPU of every process below the spawners (each agent\'s sh and sleep, and its containment), on both sides.');
  /** The most workers' figures against their repeat's local run, by sleep. */
  const summary = new Map<number, Array<{ speedUp: number; prepared: boolean; allIn: number; perMore: number; bareAllIn: number; barePerMore: number; ownAllIn: number; ownPerMore: number; redis: number }>>();
  const origins = new Map<number, string>();
  /** The sleep whose version a run on the queue published last (what workers that start now prepare). */
  let publishedLast: number | null = null;
  // --serving: the workers are started once and warmed by runs of versions used nowhere else, as
  // the runs a long-lived worker served before warm it (V8 has compiled the code every job runs),
  // as many as a worker keeps, so that each run below, which brings a version new to them, also
  // evicts one: a worker's steady state.
  const serving = SERVING ? await Promise.all(Array.from({ length: WORKER_COUNTS[0] as number }, (_, i) => startWorker(url, i))) : null;
  if (serving) {
    const warmUp = workspace(Math.min(...SLEEPS_MS), 'warm-up');
    for (let n = 1; n <= WARM_VERSIONS; n += 1) {
      newVersion(warmUp, `warm-up ${n}`);
      await coordinatorRun(freshClone(warmUp), ['--queue', url]);
    }
    console.log(
      `workers serving runs: ${serving.length} started once and warmed by runs of ${CASES} case-trials of ${WARM_VERSIONS} other versions (as many as a worker keeps); ` +
        'every run below brings a new version (checkout, runtime and spawners set up, and an older version evicted: counted)',
    );
  }
  let versions = 0;
  for (let repeat = 0; repeat < REPEATS; repeat += 1)
  for (const sleepMs of SLEEPS_MS) {
    const origin = origins.get(sleepMs) ?? workspace(sleepMs);
    origins.set(sleepMs, origin);
    if (serving) newVersion(origin, `version ${(versions += 1)}`);
    console.log(`\nagent sleeps ${sleepMs} ms; workers and the local run at concurrency ${CONCURRENCY}${REPEATS > 1 ? ` (repeat ${repeat + 1} of ${REPEATS})` : ''}`);
    console.log('| setup | wall | speed-up | CPU/job all in | per more | without agents: all in; per more | coordinator: start-up; per job (main) | workers: set-up; per job (main; other threads; spawners; agents; other) | Redis | queue\'s own work | load |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    const localShort = await coordinatorRun(freshClone(origin), firstCases(CONCURRENCY), CONCURRENCY);
    const local = await coordinatorRun(freshClone(origin), []);
    const localMeasured: Measured = { setup: `local, concurrency ${CONCURRENCY}`, wallS: local.wallS, short: CONCURRENCY, coordinatorShort: localShort, coordinator: local, workersShort: null, workers: null, redisMs: null };
    printRow(localMeasured, local.wallS);
    // Its start-up, as near as the wall clock tells it: a run of one round, less the agent's sleep.
    console.log(`  (wall time: a local run of one round, ${CONCURRENCY} case-trials, took ${ms(localShort.wallS * 1000)}: its start-up and end are about ${ms(localShort.wallS * 1000 - sleepMs)})`);
    const localCost = costs(localMeasured);
    for (const count of WORKER_COUNTS) {
      // The queue is emptied, but the version published last (and its bundle) stays, as it does
      // between runs: workers that start after a run of this same version prepare it before
      // their first job (a later setup, or a later repeat of a single sleep).
      const prepared = !serving && publishedLast === sleepMs;
      cli('eval', "for _, k in ipairs(redis.call('keys', 'bull:*')) do redis.call('del', k) end", '0');
      const workers = serving ?? (await Promise.all(Array.from({ length: count }, (_, i) => startWorker(url, i))));
      // Serving workers are counted from here; fresh ones from when they said they take case-trials.
      const before = serving ? workers.map((w) => workerCpu(w.pid)) : workers.map((w) => w.ready);
      // One case-trial per slot, so every worker takes some and sets itself up.
      const short = count * CONCURRENCY;
      const coordinatorShort = await coordinatorRun(freshClone(origin), ['--queue', url, ...firstCases(short)], short);
      // Read while every worker is alive and idle again: their spawners and agents are all in the tree.
      const setUp = workers.map((w) => workerCpu(w.pid));
      // The workers keep their checkouts (on disk, by content) and runtimes; the results of the short run go.
      cli('eval', "for _, k in ipairs(redis.call('keys', 'bull:*')) do redis.call('del', k) end", '0');
      const redisBefore = redisNow();
      const coordinator = await coordinatorRun(freshClone(origin), ['--queue', url]);
      publishedLast = sleepMs;
      const redisMs = redisNow() - redisBefore;
      const after = workers.map((w) => workerCpu(w.pid));
      const stamps = cli(
        'eval',
        "local out = {} for _, k in ipairs(redis.call('keys', 'bull:*')) do if string.match(k, ':%x+$') and string.len(k) > 64 then local v = redis.call('hmget', k, 'processedOn', 'finishedOn') if v[1] and v[2] then table.insert(out, v[1] .. ' ' .. v[2]) end end end return out",
        '0',
      );
      const jobs = stamps.split('\n').filter((line) => /^\d+ \d+$/.test(line)).map((line) => {
        const [processedOn, finishedOn] = line.split(' ').map(Number) as [number, number];
        return { processedOn, finishedOn };
      });
      const measured: Measured = {
        setup: `${count} worker${count === 1 ? '' : 's'} × ${CONCURRENCY}`,
        wallS: coordinator.wallS,
        short,
        coordinatorShort,
        coordinator,
        workersShort: sumCpu(setUp.map((s, i) => minus(s, before[i]!))),
        workers: sumCpu(after.map((s, i) => minus(s, setUp[i]!))),
        redisMs,
      };
      printRow(measured, local.wallS);
      // Outside the figures above (a worker serves many runs): its start, with what it prepared before taking case-trials.
      if (!serving) console.log(`  (each worker's start-up, before it took case-trials: ${workers.map((w) => ms(w.ready.treeMs)).join(', ')} of CPU, its own tree)`);
      console.log(wallTimeline(jobs, coordinator, count * CONCURRENCY));
      if (!serving) await Promise.all(workers.map((w) => stop(w.child)));
      if (count === Math.max(...WORKER_COUNTS)) {
        const cost = costs(measured);
        const runs = summary.get(sleepMs) ?? [];
        runs.push({
          speedUp: local.wallS / coordinator.wallS,
          allIn: cost.allIn - localCost.allIn,
          prepared,
          perMore: cost.perMore - localCost.perMore,
          bareAllIn: cost.bare.allIn - localCost.bare.allIn,
          barePerMore: cost.bare.perMore - localCost.bare.perMore,
          ownAllIn: cost.ownAllIn, ownPerMore: cost.ownPerMore, redis: redisMs / CASES });
        summary.set(sleepMs, runs);
      }
    }
  }
  console.log(`\nload average at the end: ${load()}`);
  const count = Math.max(...WORKER_COUNTS);
  for (const [sleepMs, runs] of summary) {
    // The median and the range over the repeats (one value when there is one repeat).
    const spread = (pick: (run: (typeof runs)[number]) => number, digits = 2) => {
      const sorted = runs.map(pick).sort((a, b) => a - b);
      const middle = median(sorted);
      return sorted.length === 1 ? middle.toFixed(digits) : `${middle.toFixed(digits)} [${(sorted[0] as number).toFixed(digits)}, ${(sorted.at(-1) as number).toFixed(digits)}]`;
    };
    console.log(
      `summary: sleep ${sleepMs} ms, ${count} workers ${SERVING ? 'serving runs (started once and warmed; a new version each run)' : runs.every((r) => r.prepared) ? 'that prepared the version before their first job' : runs.some((r) => r.prepared) ? '(some fresh, some prepared)' : 'started fresh'}${runs.length > 1 ? ` (median [range] of ${runs.length} repeats)` : ''}: speed-up ${spread((r) => r.speedUp)}×; ` +
        `CPU per case-trial beyond the local run's ${spread((r) => r.allIn)} ms all in, ${spread((r) => r.perMore)} ms per more; ` +
        `the same with the agents' own CPU left out on both sides ${spread((r) => r.bareAllIn)} ms all in, ${spread((r) => r.barePerMore)} ms per more; ` +
        `queue's own work ${spread((r) => r.ownAllIn)} ms all in, ${spread((r) => r.ownPerMore)} ms per more; Redis ${spread((r) => r.redis)} ms`,
    );
  }
} finally {
  await Promise.all(children.map(stop));
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
}
