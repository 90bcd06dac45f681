// What BullMQ alone costs a worker per job, with no agentdevel code: the floor under the queue's
// CPU per case-trial (bench/distributed.ts), and what carrying several case-trials per job
// (a chunk, src/adapters/queue/chunks.ts) saves of it.
// Run: npx tsx bench/bullmq-floor.ts [--sleep 1000] [--cases 400] [--chunks 1,4] [--repeat 2]
// Needs redis-server on PATH; it starts its own on a free port.
//
// 4 worker processes (BullMQ's Worker, concurrency 8, at most 8 case-trials at once each), whose
// processor only waits --sleep ms per case-trial; one producer adds --cases case-trials with
// addBulk, --chunks at a time per job. Printed per case-trial: the workers' CPU (all their
// threads, and their main threads apart, from /proc), the producer's, and Redis's (`INFO cpu`).
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { freePort } from '../test/helpers/free-port.ts';
import { load, median } from './lib/measure.ts';
import { redisCpuMs } from './lib/process-cpu.ts';

const WORKERS = 4;
const CONCURRENCY = 8;
const NAME = 'floor';

/** CPU of this process, ms: all its threads, and its main thread. */
function ownCpu(): { all: number; main: number } {
  let all = 0;
  let main = 0;
  for (const task of readdirSync('/proc/self/task')) {
    const ms = Number(readFileSync(`/proc/self/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    all += ms;
    if (task === String(process.pid)) main = ms;
  }
  return { all, main };
}

async function worker(port: number, sleepMs: number): Promise<void> {
  let free = CONCURRENCY;
  const waiting: Array<() => void> = [];
  const slot = async () => {
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  };
  const caseTrial = async (id: string) => {
    await slot();
    try {
      await new Promise((resolve) => setTimeout(resolve, sleepMs));
      return { id, result: 'r'.repeat(600) };
    } finally {
      release();
    }
  };
  const w = new Worker(NAME, async (job) => {
    const { members } = job.data as { members: string[] };
    return Promise.all(members.map(caseTrial));
  }, { connection: { host: '127.0.0.1', port }, concurrency: CONCURRENCY });
  await w.waitUntilReady();
  const start = ownCpu();
  process.send?.('ready');
  process.on('message', () => {
    const end = ownCpu();
    process.send?.({ all: end.all - start.all, main: end.main - start.main });
    void w.close().then(() => process.exit(0));
  });
}

async function oneRun(port: number, cases: number, chunk: number, sleepMs: number): Promise<{ wallS: number; workers: { all: number; main: number }; producer: number; redis: number }> {
  const cli = (...args: string[]) => spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();
  cli('flushall');
  const children = Array.from({ length: WORKERS }, () => fork(new URL(import.meta.url).pathname, ['--role', 'worker', '--port', String(port), '--sleep', String(sleepMs)], { execArgv: process.execArgv }));
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('message', resolve))));
  const queue = new Queue(NAME, { connection: { host: '127.0.0.1', port } });
  const redisBefore = redisCpuMs(cli('info', 'cpu'));
  const started = Date.now();
  const before = ownCpu().all;
  const jobs = [];
  for (let i = 0; i < cases; i += chunk) {
    const members = Array.from({ length: Math.min(chunk, cases - i) }, (_, j) => `case-trial-${i + j}-${'x'.repeat(900)}`);
    jobs.push({ name: 'case-trials', data: { members }, opts: { jobId: `job-${i}`, removeOnComplete: { age: 3600 } } });
  }
  await queue.addBulk(jobs);
  while ((await queue.getCompletedCount()) < jobs.length) await new Promise((resolve) => setTimeout(resolve, 100));
  const wallS = (Date.now() - started) / 1000;
  const producer = ownCpu().all - before;
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
    role: { type: 'string', default: 'main' },
    port: { type: 'string', default: '0' },
    sleep: { type: 'string', default: '1000' },
    cases: { type: 'string', default: '400' },
    chunks: { type: 'string', default: '1,4' },
    repeat: { type: 'string', default: '2' },
  },
});

if (values.role === 'worker') {
  await worker(Number(values.port), Number(values.sleep));
} else {
  const cases = Number(values.cases);
  const sleepMs = Number(values.sleep);
  const chunks = values.chunks.split(',').map(Number);
  const port = await freePort();
  const scratch = mkdtempSync(path.join(tmpdir(), 'bullmq-floor-'));
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', scratch], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    console.log(`bullmq-floor: ${cases} case-trials that only wait ${sleepMs} ms, ${WORKERS} BullMQ workers × ${CONCURRENCY}, no agentdevel code; load ${load()} at the start`);
    console.log('CPU in ms per case-trial (medians of the repeats, each repeat interleaving the chunk sizes)');
    const seen = new Map<number, Array<Awaited<ReturnType<typeof oneRun>>>>();
    for (let r = 0; r < Number(values.repeat); r++) {
      for (const chunk of chunks) seen.set(chunk, [...(seen.get(chunk) ?? []), await oneRun(port, cases, chunk, sleepMs)]);
    }
    console.log('| case-trials per job | wall | workers: all threads (main thread) | producer | Redis | load |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const [chunk, runs] of seen) {
      const per = (f: (run: (typeof runs)[number]) => number) => median(runs.map(f)) / cases;
      console.log(`| ${chunk} | ${median(runs.map((run) => run.wallS)).toFixed(1)} s | ${per((run) => run.workers.all).toFixed(3)} (${per((run) => run.workers.main).toFixed(3)}) | ${per((run) => run.producer).toFixed(3)} | ${per((run) => run.redis).toFixed(3)} | ${load()} |`);
    }
  } finally {
    redis.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}
