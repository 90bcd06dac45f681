// Prints how the sandbox's memory limit holds on this machine and this Node: the data-segment
// limit a sandboxed process gets for a given `sandbox.memoryMb`, and how much of a 512 MB fill of
// Buffers (memory outside the V8 heap) a script gets before it is stopped, with the reason
// recorded. Run: npx tsx bench/sandbox-limits.ts   (with another Node: PATH=/that/node/bin:$PATH)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dataLimitKb, launcher } from '../src/adapters/process/memory-limit.ts';
import { runSandboxed } from '../src/adapters/process/sandbox.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-sandbox-'));
const script = path.join(dir, 'fill.mjs');
// Writes how many MB it holds after each one, so the last line says how far it got.
writeFileSync(script, "const keep = []; for (let i = 1; i <= 512; i += 1) { keep.push(Buffer.alloc(1 << 20, 1)); process.stdout.write(`${i}\\n`); }\n");

const found = await launcher();
console.log(`node ${process.version}: baseline data segment ${found.baselineKb === null ? 'not measurable (no limit beyond the heap)' : `${Math.round(found.baselineKb / 1024)} MB`}, parent-death signal ${found.setpriv ? 'set (setpriv)' : 'not available'}`);
for (const memoryMb of [64, 128, 256]) {
  const started = performance.now();
  const verdict = await runSandboxed({ script, readable: [], writable: [], args: [], limits: { timeoutMs: 60_000, memoryMb } });
  const ms = Math.round(performance.now() - started);
  const filled = Number(verdict.outcome.stdout.trim().split('\n').at(-1) || 0);
  const limit = found.baselineKb === null ? 'none' : `${Math.round(dataLimitKb(found, found.baselineKb, memoryMb) / 1024)} MB`;
  const how = verdict.kind === 'failed' ? verdict.reason : 'not stopped';
  console.log(`memoryMb ${String(memoryMb).padStart(3)}: data limit ${limit}; filled ${filled} of 512 MB of Buffers; ${how} after ${ms} ms`);
}
