// One worker of bench/bullmq-floor.ts: BullMQ's Worker and nothing else, run by plain node (no
// TypeScript loader, whose thread would count in its CPU). A job carries one or more case-trials;
// each only waits SLEEP_MS, at most CONCURRENCY at once. On 'stop' it sends back the CPU its
// threads spent since it was ready (all of them, and its main thread), from /proc.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { Worker } = createRequire(import.meta.url)('bullmq');
const [port, sleepMs, concurrency] = process.argv.slice(2).map(Number);

function ownCpu() {
  let all = 0;
  let main = 0;
  for (const task of readdirSync('/proc/self/task')) {
    const ms = Number(readFileSync(`/proc/self/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    all += ms;
    if (task === String(process.pid)) main = ms;
  }
  return { all, main };
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
