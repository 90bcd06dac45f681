// What BullMQ alone costs a worker per job, with no agentdevel code: the floor under the queue's
// CPU per case-trial beyond a local run's (bench/distributed.ts), and what carrying several
// case-trials per BullMQ job would save of it (agentdevel sends one case-trial per job).
// Run: npx tsx bench/bullmq-floor.ts [--sleep 1000] [--cases 400] [--per-job 1,4] [--repeat 2]
// Needs redis-server and redis-cli on PATH; it starts its own server on a free port
// (bench/lib/redis-server.ts), which ends with the bench.
//
// 4 worker processes (bench/lib/bullmq-floor-worker.mjs: BullMQ's Worker, concurrency 8, at most
// 8 case-trials at once each), whose processor only waits --sleep ms per case-trial; this process
// adds --cases case-trials with addBulk, --per-job to a job, and waits for them. Printed per
// case-trial: the workers' CPU (all their threads, and their main threads apart, from /proc), this
// process's as the producer, and Redis's (`INFO cpu`), medians over the repeats, with the load
// average read after each run (its range). The producer polls the completed count 10 times a
// second, so its figure, and Redis's, grow with --sleep: the workers' figure is the one to read.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { startBenchRedis, type BenchRedis } from './lib/redis-server.ts';
import { load, median } from './lib/measure.ts';
import { redisCpuMs } from './lib/process-cpu.ts';

const WORKERS = 4;
const CONCURRENCY = 8;
const NAME = 'floor';
const WORKER = fileURLToPath(new URL('./lib/bullmq-floor-worker.mjs', import.meta.url));

/** CPU of this process, ms, all its threads (exited ones included). */
function ownCpu(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Resolves with the child's first message; rejects if it exits first. */
function firstMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`a worker exited (${code}) before it answered`));
    child.once('exit', exited);
    child.once('message', (message) => {
      child.off('exit', exited);
      resolve(message as T);
    });
  });
}

/** Asks a worker to stop and report, and waits for it to exit (killed after 10 s). */
async function stopWorker(child: ChildProcess): Promise<{ all: number; main: number }> {
  const report = firstMessage<{ all: number; main: number }>(child);
  child.send('stop');
  const spent = await report;
  if (child.exitCode === null) {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await new Promise((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
  }
  return spent;
}

async function oneRun(redis: BenchRedis, cases: number, perJob: number, sleepMs: number): Promise<{ wallS: number; workers: { all: number; main: number }; producer: number; redis: number; load: number }> {
  const { port, cli } = redis;
  cli('flushall');
  const children = Array.from({ length: WORKERS }, () => fork(WORKER, [String(port), String(sleepMs), String(CONCURRENCY)], { execArgv: [] }));
  try {
    await Promise.all(children.map((child) => firstMessage(child)));
    return await measured(cli, port, cases, perJob, children);
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

async function measured(cli: (...args: string[]) => string, port: number, cases: number, perJob: number, children: readonly ChildProcess[]) {
  const queue = new Queue(NAME, { connection: { host: '127.0.0.1', port } });
  const redisBefore = redisCpuMs(cli('info', 'cpu'));
  const started = Date.now();
  const before = ownCpu();
  const jobs = [];
  for (let i = 0; i < cases; i += perJob) {
    const members = Array.from({ length: Math.min(perJob, cases - i) }, (_, j) => `case-trial-${i + j}-${'x'.repeat(900)}`);
    jobs.push({ name: 'case-trials', data: { members }, opts: { jobId: `job-${i}`, removeOnComplete: { age: 3600 } } });
  }
  await queue.addBulk(jobs);
  while ((await queue.getCompletedCount()) < jobs.length) await new Promise((resolve) => setTimeout(resolve, 100));
  const wallS = (Date.now() - started) / 1000;
  const producer = ownCpu() - before;
  const redis = redisCpuMs(cli('info', 'cpu')) - redisBefore;
  const spent = await Promise.all(children.map(stopWorker));
  await queue.close();
  return { wallS, workers: spent.reduce((a, b) => ({ all: a.all + b.all, main: a.main + b.main }), { all: 0, main: 0 }), producer, redis, load: loadavg()[0] ?? 0 };
}

const { values } = parseArgs({
  options: {
    sleep: { type: 'string', default: '1000' },
    cases: { type: 'string', default: '400' },
    'per-job': { type: 'string', default: '1,4' },
    repeat: { type: 'string', default: '2' },
  },
});

{
  const cases = Number(values.cases);
  const sleepMs = Number(values.sleep);
  const perJobs = values['per-job'].split(',').map(Number);
  for (const [name, value] of [['--cases', cases], ['--sleep', sleepMs], ...perJobs.map((n) => ['--per-job', n] as const)] as const) {
    if (!Number.isInteger(value) || value < (name === '--sleep' ? 0 : 1)) throw new Error(`${name}: expected a whole number${name === '--sleep' ? '' : ' of at least 1'}, got ${String(value)}`);
  }
  const scratch = mkdtempSync(path.join(tmpdir(), 'bullmq-floor-'));
  const redis = await startBenchRedis(scratch);
  try {
    console.log(`bullmq-floor: ${cases} case-trials that only wait ${sleepMs} ms, ${WORKERS} BullMQ workers × ${CONCURRENCY}, no agentdevel code; load ${load()} at the start`);
    console.log('CPU in ms per case-trial (medians of the repeats, each repeat interleaving the settings)');
    const seen = new Map<number, Array<Awaited<ReturnType<typeof oneRun>>>>();
    for (let r = 0; r < Number(values.repeat); r++) {
      for (const perJob of perJobs) seen.set(perJob, [...(seen.get(perJob) ?? []), await oneRun(redis, cases, perJob, sleepMs)]);
    }
    console.log('| case-trials per job | wall | workers: all threads (main thread) | producer | Redis | load |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const [perJob, runs] of seen) {
      const per = (f: (run: (typeof runs)[number]) => number) => median(runs.map(f)) / cases;
      const loads = runs.map((run) => run.load);
      console.log(`| ${perJob} | ${median(runs.map((run) => run.wallS)).toFixed(1)} s | ${per((run) => run.workers.all).toFixed(3)} (${per((run) => run.workers.main).toFixed(3)}) | ${per((run) => run.producer).toFixed(3)} | ${per((run) => run.redis).toFixed(3)} | ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} |`);
    }
  } finally {
    await redis.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
