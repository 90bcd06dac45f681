// The workspace lock after kill -9. A pid that answers a signal is not proof of a live holder:
// a killed process stays a zombie until it is reaped, and pids are reused. Both are real
// processes here (a zombie made by a parent that never reaps, a live process that got the pid),
// and the lock takes over from each, while it still refuses a holder that does run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/adapters/process/workspace-lock.ts';
import { bootId, processState } from '../../src/adapters/process/liveness.ts';
import { until } from '../helpers/waits.ts';

const now = () => new Date('2026-11-23T12:00:00Z');
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** Starts `sh -c script` and resolves with the first line it prints. */
function startPrinting(script: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve({ child, line: out.slice(0, newline) });
    });
    child.on('error', reject);
  });
}

/** The name the kernel gives a process (what it last ran), or null once it is gone. */
function commandName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

function stateDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'agentdevel-lock-'));
}

function writeLock(dir: string, owner: object): void {
  writeFileSync(path.join(dir, 'lock'), JSON.stringify({ command: 'demo', since: '2026-11-23T11:00:00Z', ...owner }));
}

describe('the workspace lock after its holder was killed', () => {
  it('takes over from a zombie holder (killed, never reaped), with or without its start time on record', async () => {
    // The shell starts a child, prints its pid and becomes `sleep`, which never reaps it: once
    // the child is killed it stays a zombie as long as the sleep runs. The kill waits for the
    // shell's exec: dash reaps a child that dies before it (2 runs in 200 here, without the wait).
    const { child, line } = await startPrinting('sleep 30 & echo $!; exec sleep 30');
    const pid = Number(line);
    await until(() => commandName(child.pid as number) === 'sleep', 20_000, `the shell ${child.pid} to become sleep`);
    const startTime = processState(pid)?.startTime ?? null;
    expect(startTime).not.toBeNull();
    process.kill(pid, 'SIGKILL');
    await until(() => processState(pid)?.state === 'Z', 20_000, `${pid} to be a zombie`);
    // The zombie still answers a signal: the old check took it for a live holder.
    expect(() => process.kill(pid, 0)).not.toThrow();
    for (const owner of [{ pid, startTime, boot: bootId() }, { pid }]) {
      const dir = stateDir();
      writeLock(dir, owner);
      const lock = await acquireLock(dir, 'iterate', 0, now);
      expect(JSON.parse(readFileSync(path.join(dir, 'lock'), 'utf8'))).toMatchObject({ pid: process.pid, command: 'iterate' });
      await lock.release();
    }
  }, 30_000);

  it('takes over from a holder whose pid now belongs to another process (reused pid), and from one of an earlier boot', async () => {
    const { child } = await startPrinting('echo up; exec sleep 30');
    const pid = child.pid as number;
    const actual = processState(pid);
    expect(actual?.state).not.toBe('Z');
    // The lock names this pid, but a process that started at another moment: the holder died and
    // the kernel gave its pid to the sleep.
    const reused = stateDir();
    writeLock(reused, { pid, startTime: String(Number(actual?.startTime) - 1), boot: bootId() });
    await (await acquireLock(reused, 'iterate', 0, now)).release();
    const rebooted = stateDir();
    writeLock(rebooted, { pid, startTime: actual?.startTime, boot: 'an-earlier-boot' });
    await (await acquireLock(rebooted, 'iterate', 0, now)).release();
  }, 30_000);

  it('still refuses a holder that runs: the same pid, start time and boot', async () => {
    const { child } = await startPrinting('echo up; exec sleep 30');
    const pid = child.pid as number;
    const dir = stateDir();
    writeLock(dir, { pid, startTime: processState(pid)?.startTime, boot: bootId() });
    await expect(acquireLock(dir, 'iterate', 0, now)).rejects.toThrow(new RegExp(`this workspace is busy: \`agentdevel demo\` \\(pid ${pid}\\) has held it since`));
  });

  it('records its own start time and boot in the lock it holds', async () => {
    const dir = stateDir();
    const lock = await acquireLock(dir, 'iterate', 0, now);
    const owner = JSON.parse(readFileSync(path.join(dir, 'lock'), 'utf8'));
    expect(owner).toEqual({ pid: process.pid, startTime: processState(process.pid)?.startTime, boot: bootId(), command: 'iterate', since: now().toISOString() });
    await lock.release();
  });
});
