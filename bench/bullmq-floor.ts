// What BullMQ alone costs a worker per job, with no agentdevel code: the floor under the queue's
// CPU per case-trial beyond a local run's (bench/distributed.ts), and what carrying several
// case-trials per BullMQ job would save of it (agentdevel sends one case-trial per job).
// Run: npx tsx bench/bullmq-floor.ts [--sleep 1000] [--cases 400] [--per-job 1,4] [--repeat 2]
// Needs redis-server on PATH; it starts its own on a free port.
//
// 4 worker processes (bench/lib/bullmq-floor-worker.mjs: BullMQ's Worker, concurrency 8, at most
// 8 case-trials at once each), whose processor only waits --sleep ms per case-trial; this process
// adds --cases case-trials with addBulk, --per-job to a job, and waits for them. Printed per
// case-trial: the workers' CPU (all their threads, and their main threads apart, from /proc), this
// process's as the producer, and Redis's (`INFO cpu`), medians over the repeats.
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { freePort } from '../test/helpers/free-port.ts';
import { load, median } from './lib/measure.ts';
import { redisCpuMs } from './lib/process-cpu.ts';

const WORKERS = 4;
const CONCURRENCY = 8;
const NAME = 'floor';
const WORKER = fileURLToPath(new URL('./lib/bullmq-floor-worker.mjs', import.meta.url));

/** CPU of this process, ms, all its threads. */
function ownCpu(): number {
  let all = 0;
  for (const task of readdirSync('/proc/self/task')) all += Number(readFileSync(`/proc/self/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  return all;
}

async function oneRun(port: number, cases: number, perJob: number, sleepMs: number): Promise<{ wallS: number; workers: { all: number; main: number }; producer: number; redis: number }> {
  const cli = (...args: string[]) => spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();
  cli('flushall');
  const children = Array.from({ length: WORKERS }, () => fork(WORKER, [String(port), String(sleepMs), String(CONCURRENCY)], { execArgv: [] }));
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('message', resolve))));
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
  const spent = await Promise.all(children.map((child: ChildProcess) => new Promise<{ all: number; main: number }>((resolve) => {
    child.once('message', (m) => resolve(m as { all: number; main: number }));
    child.send('stop');
  })));
  await queue.close();
  return { wallS, workers: spent.reduce((a, b) => ({ all: a.all + b.all, main: a.main + b.main }), { all: 0, main: 0 }), producer, redis };
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
  const port = await freePort();
  const scratch = mkdtempSync(path.join(tmpdir(), 'bullmq-floor-'));
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', scratch], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    console.log(`bullmq-floor: ${cases} case-trials that only wait ${sleepMs} ms, ${WORKERS} BullMQ workers × ${CONCURRENCY}, no agentdevel code; load ${load()} at the start`);
    console.log('CPU in ms per case-trial (medians of the repeats, each repeat interleaving the settings)');
    const seen = new Map<number, Array<Awaited<ReturnType<typeof oneRun>>>>();
    for (let r = 0; r < Number(values.repeat); r++) {
      for (const perJob of perJobs) seen.set(perJob, [...(seen.get(perJob) ?? []), await oneRun(port, cases, perJob, sleepMs)]);
    }
    console.log('| case-trials per job | wall | workers: all threads (main thread) | producer | Redis | load |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const [perJob, runs] of seen) {
      const per = (f: (run: (typeof runs)[number]) => number) => median(runs.map(f)) / cases;
      console.log(`| ${perJob} | ${median(runs.map((run) => run.wallS)).toFixed(1)} s | ${per((run) => run.workers.all).toFixed(3)} (${per((run) => run.workers.main).toFixed(3)}) | ${per((run) => run.producer).toFixed(3)} | ${per((run) => run.redis).toFixed(3)} | ${load()} |`);
    }
  } finally {
    redis.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}
