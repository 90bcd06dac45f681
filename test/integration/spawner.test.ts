// The spawner's channel (newline-delimited JSON over its stdin and stdout, one write per turn
// of the event loop each way): real spawners, real `sh` children.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SpawnerLost, startLineRunner } from '../../src/adapters/process/spawner.ts';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** This process's children whose command line names the spawner, by pid. */
function spawnerPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('spawner-entry.mjs')) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the spawner', () => {
  it('gives each of many concurrent runs its own lines, in order, those sent with the exit included', async () => {
    const runner = startLineRunner(2);
    try {
      const script = 'read -r input; i=0; while [ $i -lt 5 ]; do printf "%s %s\\n" "$input" $i; i=$((i+1)); done; printf "no newline at the end"';
      const runs = Array.from({ length: 24 }, async (_, n) => {
        const lines: string[] = [];
        const outcome = await runner.run({ command: 'sh', args: ['-c', script], env, input: `run-${n}\n`, timeoutMs: 20_000 }, (line) => lines.push(line));
        return { n, lines, outcome };
      });
      for (const { n, lines, outcome } of await Promise.all(runs)) {
        expect(outcome.exitCode).toBe(0);
        expect(lines).toEqual([...Array.from({ length: 5 }, (_, i) => `run-${n} ${i}`), 'no newline at the end']);
      }
    } finally {
      await runner.close();
    }
  });

  it('stops a run whose line handler throws, and rethrows the handler error', async () => {
    const runner = startLineRunner(1);
    try {
      const error = await runner
        .run({ command: 'sh', args: ['-c', 'echo first; sleep 30; echo never'], env, timeoutMs: 60_000 }, () => {
          throw new Error('the handler refused the line');
        })
        .then(() => null, (e: unknown) => e);
      expect((error as Error).message).toBe('the handler refused the line');
    } finally {
      await runner.close();
    }
  }, 20_000);

  it('closes once its spawners have exited, with every child they ran killed', async () => {
    const runner = startLineRunner(1);
    let group = 0;
    const running = runner.run({ command: 'sh', args: ['-c', 'echo $$; exec sleep 30'], env, timeoutMs: 60_000 }, (line) => (group = Number(line)));
    await expect.poll(() => group, { timeout: 10_000 }).toBeGreaterThan(0);
    const spawners = spawnerPids();
    expect(spawners).toHaveLength(1);
    await runner.close();
    // Reaped by this process, not left to init: its CPU counts for whoever measures this tree.
    expect(spawners.filter(alive)).toEqual([]);
    await expect(running).rejects.toBeInstanceOf(SpawnerLost);
    await expect.poll(() => alive(group), { timeout: 5000 }).toBe(false);
  }, 20_000);

  it('fails the runs of a spawner that dies as an infrastructure failure (SpawnerLost), and kills their children', async () => {
    const runner = startLineRunner(1);
    let group = 0;
    const running = runner.run({ command: 'sh', args: ['-c', 'echo $$; exec sleep 30'], env, timeoutMs: 60_000 }, (line) => (group = Number(line)));
    try {
      await expect.poll(() => group, { timeout: 10_000 }).toBeGreaterThan(0);
      for (const pid of spawnerPids()) process.kill(pid, 'SIGKILL');
      await expect(running).rejects.toBeInstanceOf(SpawnerLost);
      await expect.poll(() => alive(group), { timeout: 5000 }).toBe(false);
    } finally {
      await runner.close();
    }
  }, 20_000);
});
