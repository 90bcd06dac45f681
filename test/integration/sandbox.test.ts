import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSandboxed } from '../../src/adapters/process/sandbox.ts';
import { permissionArgs, permissionFlag } from '../../src/adapters/process/node-permissions.ts';
import { tempDir } from '../helpers/workspace.ts';

let dir: string;
let records: string;
let outDir: string;

function script(name: string, source: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, source);
  return file;
}

async function sandboxed(source: string, limits = { timeoutMs: 5000, memoryMb: 64 }) {
  const file = script(`s-${Math.random().toString(36).slice(2)}.mjs`, source);
  return runSandboxed({ script: file, readable: [records], writable: [outDir], args: [records, path.join(outDir, 'report.json')], limits });
}

beforeAll(() => {
  dir = tempDir('agentdevel-sandbox-');
  records = path.join(dir, 'records.jsonl');
  writeFileSync(records, '{"caseId":"a"}\n{"caseId":"b"}\n');
  outDir = path.join(dir, 'out');
  mkdirSync(outDir);
  writeFileSync(path.join(dir, 'secret.txt'), 'do not read');
});

describe('the diagnosis sandbox', () => {
  it('lets a script read its records and write its report', async () => {
    const verdict = await sandboxed(
      "import fs from 'node:fs'; const [r, o] = process.argv.slice(2); const n = fs.readFileSync(r, 'utf8').trim().split('\\n').length; fs.writeFileSync(o, JSON.stringify({ n }));",
    );
    expect(verdict.kind).toBe('ok');
  });

  it('denies environment variables, even ones the parent has', async () => {
    process.env.AGENTDEVEL_TEST_SECRET = 'sk-test-should-not-leak';
    const verdict = await sandboxed('console.log(process.env.AGENTDEVEL_TEST_SECRET)');
    expect(verdict.kind).toBe('failed');
    if (verdict.kind === 'failed') expect(verdict.reason).toMatch(/environment variable AGENTDEVEL_TEST_SECRET is denied/);
    expect(verdict.outcome.stdout).not.toContain('sk-test-should-not-leak');
  });

  it('denies listing the environment', async () => {
    const verdict = await sandboxed('console.log(Object.keys(process.env))');
    expect(verdict.kind).toBe('failed');
  });

  it('denies reading a file outside its inputs', async () => {
    const verdict = await sandboxed(`import fs from 'node:fs'; console.log(fs.readFileSync(${JSON.stringify(path.join(dir, 'secret.txt'))}, 'utf8'))`);
    expect(verdict.kind).toBe('failed');
    if (verdict.kind === 'failed') expect(verdict.reason).toMatch(/ERR_ACCESS_DENIED|restricted|denied/i);
    expect(verdict.outcome.stdout).not.toContain('do not read');
  });

  it('denies writing outside the report folder', async () => {
    const verdict = await sandboxed(`import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(path.join(dir, 'escape.txt'))}, 'x')`);
    expect(verdict.kind).toBe('failed');
  });

  it.each([
    ['spawning a process', "import cp from 'node:child_process'; cp.spawnSync('ls', { env: {} });", /ERR_ACCESS_DENIED|restricted/],
    ['spawning a process with exec', "import cp from 'node:child_process'; cp.execFileSync('/bin/echo', ['hi'], { env: {} });", /ERR_ACCESS_DENIED|restricted/],
    ['starting a worker', "import { Worker } from 'node:worker_threads'; new Worker('1', { eval: true });", /ERR_ACCESS_DENIED|restricted/],
    ['opening a socket', "import net from 'node:net'; net.connect(80, '127.0.0.1');", /the network is denied/],
    ['fetching', "await fetch('http://127.0.0.1:9/')", /the network is denied/],
    ['a DNS lookup', "import dns from 'node:dns'; await dns.promises.lookup('example.com')", /the network is denied/],
    ['a DNS resolver', "import dns from 'node:dns'; new dns.promises.Resolver().resolve4('example.com')", /the network is denied/],
  ])('denies %s', async (_name, source, reason) => {
    const verdict = await sandboxed(source);
    expect(verdict.kind).toBe('failed');
    if (verdict.kind === 'failed') expect(verdict.reason).toMatch(reason);
  });

  it('kills a script that loops forever at the time limit', async () => {
    const started = Date.now();
    const verdict = await sandboxed('for (;;) {}', { timeoutMs: 1000, memoryMb: 64 });
    expect(verdict.kind).toBe('failed');
    if (verdict.kind === 'failed') expect(verdict.reason).toMatch(/time limit of 1000 ms/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('stops a script that fills memory outside the V8 heap (Buffers), and says which limit it broke', async () => {
    const verdict = await sandboxed('const keep = []; for (let i = 0; i < 512; i += 1) keep.push(Buffer.alloc(1 << 20, 1)); console.log("filled", keep.length);', { timeoutMs: 20_000, memoryMb: 64 });
    expect(verdict.kind).toBe('failed');
    if (verdict.kind === 'failed') expect(verdict.reason).toBe('killed at the memory limit of 64 MB');
    expect(verdict.outcome.stdout).not.toContain('filled');
  });

  it.each([
    ['its parent', 'process.kill(process.ppid, "SIGTERM")'],
    ['its parent, through the internal spelling', 'process._kill(process.ppid, 15)'],
  ])('stops a script that signals %s, and says so', async (_name, source) => {
    const verdict = await sandboxed(`try { ${source}; } catch {} console.log('went on');`);
    expect(verdict.kind).toBe('failed');
    if (verdict.kind === 'failed') expect(verdict.reason).toMatch(/^stopped: it tried to signal another process/);
    expect(verdict.outcome.stdout).not.toContain('went on');
  });

  it('lets a script signal itself', async () => {
    const verdict = await sandboxed("process.kill(process.pid, 0); import fs from 'node:fs'; fs.writeFileSync(process.argv[3], '{}');");
    expect(verdict.kind).toBe('ok');
  });

  it('kills a script at the memory limit', async () => {
    const verdict = await sandboxed('const keep = []; for (;;) keep.push(new Array(1e6).fill(7));', { timeoutMs: 20_000, memoryMb: 48 });
    expect(verdict.kind).toBe('failed');
    if (verdict.kind === 'failed') expect(verdict.reason).toMatch(/memory limit of 48 MB/);
  });
});

describe('the permission flag', () => {
  it('uses the spelling the running Node knows', () => {
    expect(permissionFlag(new Set(['--permission', '--experimental-permission']))).toBe('--permission');
    expect(permissionFlag(new Set(['--experimental-permission']))).toBe('--experimental-permission');
    expect(() => permissionFlag(new Set())).toThrow(/no permission model/);
    expect(permissionArgs({ read: ['/a'], write: ['/b'] }, new Set(['--permission']))).toEqual(['--permission', '--allow-fs-read=/a', '--allow-fs-write=/b']);
  });
});
