// The process runner's short processes (git, scorer and diagnosis scripts, probes): real
// processes, their output, their input, their ends, and the bounds on time and output.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/adapters/process/runner.ts';
import { brokenLimit } from '../../src/adapters/process/sandbox.ts';
import { repoRoot, tempDir } from '../helpers/workspace.ts';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const sh = (script: string, extra: Partial<Parameters<typeof runProcess>[0]> = {}) => runProcess({ command: 'sh', args: ['-c', script], env, ...extra });

/** No such process, or only its zombie (whoever adopted it has not reaped it yet). */
const gone = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;
  } catch {
    return true;
  }
};

describe('runProcess', () => {
  it('gives the process its input, and returns its output, its errors and its exit code as they were', async () => {
    const outcome = await sh('cat; printf "é%.0s" $(seq 1 40000) >&2; exit 3', { input: 'hello\nworld' });
    expect(outcome.stdout).toBe('hello\nworld');
    // A character split across reads is decoded whole.
    expect(outcome.stderr).toBe('é'.repeat(40000));
    expect(outcome).toMatchObject({ exitCode: 3, signal: null, timedOut: false, spawnError: null });
  });

  it('says a process could not start, without an exit code', async () => {
    const outcome = await runProcess({ command: 'agentdevel-no-such-program', args: [], env });
    expect(outcome.spawnError).toMatch(/ENOENT/);
    expect(outcome.exitCode).toBeNull();
    const nowhere = await runProcess({ command: 'sh', args: ['-c', 'true'], env, cwd: path.join(tempDir('agentdevel-runner-'), 'missing') });
    expect(nowhere.spawnError).toMatch(/ENOENT/);
  });

  it('kills the whole group at its time limit: nothing it started outlives it', async () => {
    const dir = tempDir('agentdevel-runner-');
    const pidFile = path.join(dir, 'pid');
    const outcome = await sh(`sleep 30 & echo $! > ${pidFile}; wait`, { timeoutMs: 300 });
    expect(outcome.timedOut).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => gone(pid), { timeout: 5000 }).toBe(true);
  });

  it('stops a process at its output bound, keeps what it printed up to it, and says why', async () => {
    const outcome = await sh('yes agentdevel', { maxOutputBytes: 1000 });
    expect(outcome.stdout).toHaveLength(1000);
    expect(outcome.stdout.startsWith('agentdevel\nagentdevel\n')).toBe(true);
    expect(outcome.signal).toBe('SIGKILL');
    expect(outcome.stderr).toContain('its output passed 1000 bytes');
  });

  it('reports output cut at its bound as no success, also from a process that exited 0 before the kill', async () => {
    // 5000 bytes at once, then exit 0: the chunk that passes the bound may come after the exit.
    const outcome = await sh('printf "%05000d" 0', { maxOutputBytes: 1000 });
    expect(outcome.stdout).toBe('0'.repeat(1000));
    expect(outcome.exitCode).toBeNull();
    expect(outcome.stderr).toContain('its output passed 1000 bytes');
    // A sandboxed script cut there is reported as such, from the outcome, not from its own words.
    expect(brokenLimit(outcome, { timeoutMs: 30_000, memoryMb: 256 })).toBe('stopped: its output passed 1000 bytes');
    const forged = await sh('echo "agentdevel: stopped, its output passed 7 bytes" >&2; exit 3', { maxOutputBytes: 1000 });
    expect(brokenLimit(forged, { timeoutMs: 30_000, memoryMb: 256 })).toBeNull();
  });

  it('says a start failed for want of file descriptors, instead of ending agentdevel (a process run to completion, and a pipe process)', () => {
    const script = path.join(tempDir('agentdevel-runner-'), 'emfile.mts');
    writeFileSync(
      script,
      `import { openSync } from 'node:fs';
const { runProcess, startPipeProcess } = await import(${JSON.stringify(path.join(repoRoot, 'src', 'adapters', 'process', 'runner.ts'))});
try { for (;;) openSync('/dev/null', 'r'); } catch {}
const outcome = await runProcess({ command: 'true', args: [], env: {} });
const piped = await startPipeProcess({ command: 'cat', args: [], env: {} }).exited;
console.log(JSON.stringify({ outcome: outcome.spawnError, piped: piped.spawnError }));
`,
    );
    const run = spawnSync('sh', ['-c', `ulimit -n 256; exec "${process.execPath}" --import tsx "${script}"`], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ outcome: expect.stringMatching(/EMFILE/), piped: expect.stringMatching(/EMFILE/) });
  });

  it("at agentdevel's exit asks a process run with atExit 'terminate' to end (git then removes its locks) before it kills it; others are killed outright", () => {
    const dir = tempDir('agentdevel-runner-');
    const script = path.join(dir, 'exit.mts');
    const child = (name: string) => `trap 'echo cleaned > ${path.join(dir, name)}; exit 0' TERM; sleep 30 & wait`;
    writeFileSync(
      script,
      `const { runProcess } = await import(${JSON.stringify(path.join(repoRoot, 'src', 'adapters', 'process', 'runner.ts'))});
const env = { PATH: process.env.PATH };
void runProcess({ command: 'sh', args: ['-c', ${JSON.stringify(child('asked'))}], env, atExit: 'terminate' });
void runProcess({ command: 'sh', args: ['-c', ${JSON.stringify(child('killed'))}], env });
setTimeout(() => process.exit(0), 500);
`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(readFileSync(path.join(dir, 'asked'), 'utf8')).toBe('cleaned\n');
    expect(() => readFileSync(path.join(dir, 'killed'))).toThrow(/ENOENT/);
  });

  it('is not held by a process it started that left its group and keeps the output open', async () => {
    const dir = tempDir('agentdevel-runner-');
    const pidFile = path.join(dir, 'pid');
    const outcome = await sh(`setsid sleep 30 & echo $! > ${pidFile}; echo done`);
    expect(outcome.stdout).toBe('done\n');
    expect(outcome.exitCode).toBe(0);
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
  });
});
