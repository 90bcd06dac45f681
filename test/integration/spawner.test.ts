// The spawner's channel (newline-delimited JSON over its stdin and stdout, one write per turn
// of the event loop each way): real spawners, real `sh` children. Both spawners: Node's
// (spawner-entry.mjs) and the containment launcher's `serve` (built here with the machine's C
// compiler; skipped without one).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLauncher } from '../../src/adapters/process/containment-launcher.ts';
import { SpawnerLost, startLineRunner } from '../../src/adapters/process/spawner.ts';
import { spawnersOf } from '../helpers/processes.ts';
import { tempDir } from '../helpers/workspace.ts';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

const built = await buildLauncher(process.env);
const launcher = 'binary' in built ? built.binary : null;

const spawnerPids = () => spawnersOf(process.pid);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.each([
  ['Node', null],
  ['the launcher', launcher],
])('the spawner (%s)', (kind, server) => {
  const options = { launcher: server };
  it.skipIf(kind === 'the launcher' && server === null)('prepare starts every spawner before any run; once closed, neither a run nor a prepare starts another', async () => {
    const before = spawnerPids();
    const runner = startLineRunner(2, options);
    await runner.prepare();
    const started = spawnerPids().filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(2);
    await runner.close();
    expect(started.filter(alive)).toEqual([]);
    await expect(runner.run({ command: 'sh', args: ['-c', 'true'], env, timeoutMs: 20_000 }, () => undefined)).rejects.toBeInstanceOf(SpawnerLost);
    await expect(runner.prepare()).rejects.toBeInstanceOf(SpawnerLost);
    expect(spawnerPids().filter((pid) => !before.includes(pid))).toEqual([]);
  });
  it.skipIf(kind === 'the launcher' && server === null)('says why a run could not start or was stopped: a missing program, a missing folder, the time limit; keeps stderr', async () => {
    const runner = startLineRunner(1, options);
    try {
      const missing = await runner.run({ command: 'no-such-program-xyz', args: [], env, timeoutMs: 20_000 }, () => undefined);
      expect(missing.spawnError).toMatch(/ENOENT/);
      const folder = path.join(tempDir(), 'gone');
      const nowhere = await runner.run({ command: 'sh', args: ['-c', 'true'], cwd: folder, env, timeoutMs: 20_000 }, () => undefined);
      expect(nowhere.spawnError).toBe(`the working folder ${folder} does not exist`);
      const slow = await runner.run({ command: 'sh', args: ['-c', 'echo "said \\"this\\"" >&2; sleep 30'], env, timeoutMs: 300 }, () => undefined);
      expect(slow).toMatchObject({ timedOut: true, signal: 'SIGKILL', exitCode: null, stderr: 'said "this"\n', spawnError: null });
      const exited = await runner.run({ command: 'sh', args: ['-c', 'exit 7'], env, timeoutMs: 20_000 }, () => undefined);
      expect(exited).toMatchObject({ exitCode: 7, signal: null, timedOut: false });
    } finally {
      await runner.close();
    }
  });

  it('gives each of many concurrent runs its own lines, in order, those sent with the exit included', async () => {
    const runner = startLineRunner(2, options);
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
    const runner = startLineRunner(1, options);
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
    const runner = startLineRunner(1, options);
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
    const runner = startLineRunner(1, options);
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
