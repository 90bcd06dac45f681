#!/usr/bin/env node
// agentdevel is written in TypeScript. It starts from the prebuilt bundle in dist/ (built by
// `npm ci` / `npm install` / `npm pack` through the `prepare` script, and shipped in the package),
// and falls back to compiling the sources on the fly with tsx when the bundle is absent or was
// built from other sources (lib/load-entry.mjs): `node bin/agentdevel.mjs` always runs what
// src/ says, on a fresh clone too.
import v8 from 'node:v8';
import { enableCompileCache } from '../lib/compile-cache.mjs';
import { loadEntry } from '../lib/load-entry.mjs';

// Node 22.8 and later keep the bundle's compiled code between starts (lib/compile-cache.mjs).
enableCompileCache();

// A run of many cases allocates fast and keeps little (per-case counters; records and traces go
// to disk as they finish). V8 then lets the heap grow to several times what is live before a
// full collection: at 100,000 cases, 300 MB resident for 25 MB live. Growing the heap by at
// most a quarter after each full collection keeps it near its live size, for a few
// milliseconds of marking each time. (The flag is read at every collection, so it works when
// set here; Node 20, 22 and 24 know it. Only the CLI sets it: the library leaves its host's
// heap alone.)
// A read-only command allocates little and ends in a moment: there the flag only costs collections.
// Nor does a worker keep anything of a case-trial once it is sent back: its live heap is a few
// jobs, and the flag's extra full collections cost it about 0.3 ms of CPU per case-trial in
// V8's helper threads (bench/distributed.ts), for no memory it would otherwise hold.
const UNFLAGGED = new Set(['log', 'show', 'report', 'compare', 'prompts', 'worker', 'help', '--help', '-h', '--version', '-V']);
const firstWord = process.argv.slice(2).find((arg, i, args) => !arg.startsWith('-') && args[i - 1] !== '-C') ?? process.argv[2];
if (!UNFLAGGED.has(firstWord ?? '')) v8.setFlagsFromString('--heap-growing-percent=25');

// A reader that goes away (`agentdevel log | head`) ends the output, not the program with a stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// Benchmarks of several processes (bench/distributed.ts) ask what this one spent on a CPU:
// AGENTDEVEL_CPU_REPORT=FILE appends one JSON line at exit, the whole process (all threads)
// and its main thread apart (the kernel's per-thread count, in nanoseconds).
const cpuReport = process.env.AGENTDEVEL_CPU_REPORT;
if (cpuReport) {
  const { appendFileSync, readFileSync } = await import('node:fs');
  process.on('exit', (code) => {
    const usage = process.cpuUsage();
    let mainThreadMs = null;
    try {
      mainThreadMs = Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      // Not Linux: the bench reports the process alone.
    }
    appendFileSync(cpuReport, `${JSON.stringify({ pid: process.pid, command: firstWord ?? null, code, processMs: (usage.user + usage.system) / 1000, mainThreadMs })}\n`);
  });
}

const { main } = await loadEntry('agentdevel', 'src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
// The command is over. Nothing it started should keep the process alive; if something does (a
// bug), end anyway rather than wait forever: exit hooks still stop any child left running.
setTimeout(() => {
  process.stderr.write('agentdevel: something was still running after the command finished; exiting\n');
  process.exit(process.exitCode);
}, 5000).unref();
