// One worker of bench/bullmq-floor.ts: BullMQ's Worker and nothing else, run by plain node (no
// TypeScript loader, whose thread would count in its CPU). A job carries one or more case-trials;
// each only waits SLEEP_MS, at most CONCURRENCY at once. On 'stop' it sends back the CPU its
// threads spent since it was ready (all of them, and its main thread apart).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { Worker } = createRequire(import.meta.url)('bullmq');
const [port, sleepMs, concurrency] = process.argv.slice(2).map(Number);

/** All threads (exited ones included), and the main thread apart (Linux's per-thread count). */
function ownCpu() {
  const usage = process.cpuUsage();
  const main = Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  return { all: (usage.user + usage.system) / 1000, main };
}

let free = concurrency;
const waiting = [];
async function caseTrial(id) {
  if (free > 0) free -= 1;
  else await new Promise((resolve) => waiting.push(resolve));
  try {
    await new Promise((resolve) => setTimeout(resolve, sleepMs));
    return { id, result: 'r'.repeat(600) };
  } finally {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  }
}

// The bench that started it is gone: so is this worker.
process.on('disconnect', () => process.exit(1));

const worker = new Worker('floor', async (job) => Promise.all(job.data.members.map(caseTrial)), { connection: { host: '127.0.0.1', port }, concurrency });
await worker.waitUntilReady();
const start = ownCpu();
process.send('ready');
process.on('message', async () => {
  const end = ownCpu();
  process.send({ all: end.all - start.all, main: end.main - start.main });
  await worker.close();
  process.exit(0);
});
