// Nothing an untrusted program starts outlives it, whatever it does to escape: leave its process
// group and session (setsid), clear its environment (env -i, env -u AGENTDEVEL_CONTAINED), or
// orphan itself (a double fork). Blueprint checks and `command` agents alike, under the same
// memory limit, and the outcome names the limit that stopped them. Both start-up chains: the
// containment launcher (built with this machine's C compiler), and the shell chain a machine
// without a compiler gets (CC names no compiler and the cache folder is empty, so no launcher
// can be found or built). Real processes throughout; each escapee sleeps for a number no other
// process uses, so the test can look for it.
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/adapters/blueprint/load.ts';
import { createMockEngine } from '../../src/adapters/engines/mock/index.ts';
import { runBlueprintChecks } from '../../src/adapters/process/blueprint-checks.ts';
import { startLineRunner } from '../../src/adapters/process/spawner.ts';
import { containment, containmentReport, untrustedCommand } from '../../src/adapters/process/untrusted.ts';
import { startRuntime } from '../../src/adapters/runtimes/index.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { spawnersOf } from '../helpers/processes.ts';
import { processesMentioning, tempDir } from '../helpers/workspace.ts';
import { waitFor } from '../helpers/waits.ts';

const env = { PATH: process.env.PATH ?? '' };
/** A machine without a C compiler, whose cache holds no launcher: the shell chain. */
const withoutCompiler = { ...env, CC: '/nonexistent/cc', XDG_CACHE_HOME: tempDir('agentdevel-no-cache-') };
const launcherBuilt = (await containmentReport(env)).includes('by the launcher');
const CHAINS: readonly [string, Record<string, string>][] = [
  ['the launcher', env],
  ['the shell chain', withoutCompiler],
];
let serial = 0;
/** A `sleep` argument unique to this test run: 4xx.<pid><n>. */
const marker = () => `4${String(++serial).padStart(2, '0')}.${process.pid}`;

/** Runs `body` with the escapee's marker, then checks that no `sleep <marker>` is left (and kills any, so the machine stays clean). */
async function leavesNothing(body: (sleep: string) => Promise<void>): Promise<void> {
  const sleep = marker();
  try {
    await body(sleep);
    // The containment acts when the program ends: nothing to wait for but the kernel's reaping.
    expect(await waitFor(() => processesMentioning(`sleep ${sleep}`).length === 0, 2000), processesMentioning(`sleep ${sleep}`).join('\n')).toBe(true);
  } finally {
    for (const line of processesMentioning(`sleep ${sleep}`)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
  }
}

const namespaced = (await containment()) === 'pid-namespace';

describe.each(CHAINS)("a blueprint check's processes, started by %s", (_chain, env) => {
  it.skipIf(!namespaced).each<[string, (sleep: string) => string[]]>([
    // setsid -f forks whether or not it leads a group, and its child runs on in a session of its
    // own. The shell stays a moment, so the child is out of the group well before the check ends.
    ['setsid -f with a cleared environment', (sleep) => ['sh', '-c', `env -i setsid -f sleep ${sleep}; sleep 0.2`]],
    ['setsid -f without the containment variable', (sleep) => ['sh', '-c', `env -u AGENTDEVEL_CONTAINED setsid -f sleep ${sleep}; sleep 0.2`]],
    ['setsid -f as the check itself', (sleep) => ['env', '-i', 'setsid', '-f', 'sleep', sleep]],
    ['a double fork whose middle process exits at once', (sleep) => ['sh', '-c', `(env -i setsid sleep ${sleep} </dev/null >/dev/null 2>&1 &); exit 0`]],
  ])('end with it in a PID namespace: %s', async (_name, command) => {
    await leavesNothing(async (sleep) => {
      const [outcome] = await runBlueprintChecks([{ name: 'escape', command: command(sleep), timeoutMs: 30_000 }], tempDir('agentdevel-checks-'), env, 64);
      expect(outcome?.ok, outcome?.detail).toBe(true);
    });
  });

  it('end with it where no namespace can be made: found by their parent chain while it runs, with a cleared environment and their own session', async () => {
    await leavesNothing(async (sleep) => {
      const escape = `env -i setsid sleep ${sleep} </dev/null >/dev/null 2>&1 & sleep 0.3; exit 0`;
      const [outcome] = await runBlueprintChecks([{ name: 'escape', command: ['sh', '-c', escape], timeoutMs: 30_000 }], tempDir('agentdevel-checks-'), env, 64, 'process-table');
      expect(outcome?.ok, outcome?.detail).toBe(true);
    });
  });

  it('are refused where no namespace can be made while agentdevel holds a secret they could read there, naming the variable and not its value', async () => {
    const held = { ...env, ANTHROPIC_API_KEY: 'sk-ant-held-by-agentdevel-0001' };
    const refused = runBlueprintChecks([{ name: 'probe', command: ['true'], timeoutMs: 30_000 }], tempDir('agentdevel-checks-'), held, 64, 'process-table');
    await expect(refused).rejects.toMatchObject({ code: 'UNCONTAINED_SECRETS', message: expect.stringMatching(/could read ANTHROPIC_API_KEY: no namespace/) });
    await expect(refused).rejects.not.toMatchObject({ message: expect.stringContaining('sk-ant-held') });
    // In a namespace of its own, its /proc holds nothing of agentdevel's: it runs.
    if (namespaced) expect((await runBlueprintChecks([{ name: 'probe', command: ['true'], timeoutMs: 30_000 }], tempDir('agentdevel-checks-'), held, 64))[0]?.ok).toBe(true);
  });

  it('still fail and name a command that does not exist', async () => {
    const [outcome] = await runBlueprintChecks([{ name: 'typo', command: ['no-such-checker-xyz'], timeoutMs: 30_000 }], tempDir('agentdevel-checks-'), env, 64);
    expect(outcome?.ok).toBe(false);
    expect(outcome?.detail).toMatch(/^could not start no-such-checker-xyz: /);
  });
});

/** A `command` blueprint whose agent is the given script (run with this Node), under memoryMb. */
async function commandAgent(source: string, memoryMb: number, parentEnv: Record<string, string>) {
  const dir = tempDir('agentdevel-cmd-');
  mkdirSync(path.join(dir, 'blueprints/a'), { recursive: true });
  writeFileSync(path.join(dir, 'blueprints/a/blueprint.json'), JSON.stringify({ runtime: 'command', command: [process.execPath, 'agent.mjs'], timeoutMs: 60_000 }));
  writeFileSync(path.join(dir, 'blueprints/a/agent.mjs'), source);
  const blueprint = await loadBlueprint(dir, 'a', tempDir('agentdevel-build-'));
  return startRuntime({ blueprint, environmentBundle: null, model: createMockEngine(), agentModel: 'mock', callTimeoutMs: 5000, memoryMb, passEnv: [], gradingPaths: ['expected'], parentEnv });
}

describe.each(CHAINS)('a command agent started by %s gets the limits of every untrusted process', (chain, env) => {
  it.skipIf(!namespaced || (chain === 'the launcher' && !launcherBuilt))("runs alone in namespaces of its own: the 2nd process of a PID namespace whose 1st is its init, a /proc that lists those two alone, no capability, the init's memory closed to it", async () => {
    // The agent lists /proc's processes (shell builtins and cat only) and says who process 1 is.
    const runtime = await commandAgent(
      `import { execFileSync } from 'node:child_process';
const listed = execFileSync('sh', ['-c', 'for p in /proc/[0-9]*; do echo "\${p#/proc/}"; done'], { encoding: 'utf8' }).trim().split('\\n').map(Number).sort((a, b) => a - b);
// The same /proc reached up from its working folder: its own namespace's, not one the folder came from.
const up = process.cwd().split('/').filter(Boolean).map(() => '..').join('/') + '/proc';
const listedUp = execFileSync('sh', ['-c', 'for p in ' + up + '/[0-9]*; do echo "\${p##*/}"; done'], { encoding: 'utf8' }).trim().split('\\n').map(Number).sort((a, b) => a - b);
const init = execFileSync('cat', ['/proc/1/cmdline'], { encoding: 'utf8' }).split('\\0').join(' ');
let initMemory = 'read';
try { execFileSync('cat', ['/proc/1/environ'], { stdio: 'ignore' }); } catch { initMemory = 'refused'; }
const caps = /CapEff:\\s*(\\w+)/.exec(execFileSync('cat', ['/proc/self/status'], { encoding: 'utf8' }))[1];
console.log(JSON.stringify({ type: 'final', output: { pid: process.pid, listed, listedUp, init, caps, initMemory } }));
`,
      128,
      env,
    );
    try {
      const outcome = await runtime.runCase({ id: 'c1' }, 0, { emit: () => undefined });
      const seen = outcome.output as { pid: number; listed: number[]; listedUp: number[]; init: string; caps: string; initMemory: string };
      expect(seen.pid).toBe(2);
      // 1 and 2, and the shell the agent started to look: none of agentdevel's.
      expect(seen.listed.slice(0, 2)).toEqual([1, 2]);
      expect(seen.listed).toHaveLength(3);
      expect(seen.listedUp.slice(0, 2)).toEqual([1, 2]);
      expect(seen.listedUp.length).toBeLessThan(5);
      expect(seen.caps).toBe('0000000000000000');
      expect(seen.init).toMatch(chain === 'the launcher' ? /agentdevel\/contain-[0-9a-f]+ serve/ : /agentdevel-init/);
      // The launcher's init is a fork of the helper that serves every case-trial of the run, with
      // a copy of its memory: closed to the program (the shell chain's init is an exec'd shell).
      if (chain === 'the launcher') expect(seen.initMemory).toBe('refused');
    } finally {
      await runtime.close();
    }
  });

  it('nothing it starts outlives its case-trial: a double-forked setsid with a cleared environment included', async () => {
    await leavesNothing(async (sleep) => {
      const runtime = await commandAgent(
        `import { execFileSync } from 'node:child_process';
execFileSync('sh', ['-c', '(env -i setsid sleep ${sleep} </dev/null >/dev/null 2>&1 &); exit 0']);
console.log(JSON.stringify({ type: 'final', output: 'done' }));
`,
        128,
        env,
      );
      try {
        const outcome = await runtime.runCase({ id: 'c1' }, 0, { emit: () => undefined });
        expect(outcome.output).toBe('done');
      } finally {
        await runtime.close();
      }
    });
  });

  it('is stopped at the memory limit, off-heap too, and its trace names the limit', async () => {
    // 512 MB of Buffers, kept: no V8 heap limit sees them; the data-segment limit does.
    const runtime = await commandAgent(
      `const kept = [];
for (let i = 0; i < 32; i += 1) kept.push(Buffer.alloc(16 * 1024 * 1024, 1));
console.log(JSON.stringify({ type: 'final', output: kept.length }));
`,
      64,
      env,
    );
    const events: TraceEvent[] = [];
    try {
      const outcome = await runtime.runCase({ id: 'c1' }, 0, { emit: (e) => events.push(e) });
      expect(outcome.output).toBeNull();
      expect(events).toContainEqual({ type: 'error', kind: 'agent', message: 'killed at the memory limit of 64 MB' });
    } finally {
      await runtime.close();
    }
  });

  it('where no namespace can be made, the spawner side follows its descendants and kills them at its exit', async () => {
    await leavesNothing(async (sleep) => {
      const escape = `env -i setsid sleep ${sleep} </dev/null >/dev/null 2>&1 & sleep 0.3; echo done`;
      // As untrusted.ts launches it there: the program under the memory limit, by the launcher (served by it) or bare.
      const launch = await untrustedCommand(['sh', '-c', escape], 64, { parentEnv: env, passed: [] }, 'process-table');
      expect(launch.launcher === null).toBe(chain === 'the shell chain' || !launcherBuilt);
      const runner = startLineRunner(1, { launcher: launch.launcher });
      try {
        const lines: string[] = [];
        const outcome = await runner.run({ ...launch, env, timeoutMs: 30_000 }, (line) => lines.push(line));
        expect(outcome.exitCode).toBe(0);
        expect(lines).toEqual(['done']);
      } finally {
        runner.close();
      }
    });
  });
});

/** A process's parent, from /proc (null once it is gone). */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

describe('a program the launcher serves', () => {
  it.skipIf(!namespaced || !launcherBuilt)("is started under an init that is the helper's own child (cloned into the namespaces, no launcher process between), and the time limit ends both", async () => {
    const sleep = marker();
    const launch = await untrustedCommand(['sleep', sleep], 64, { parentEnv: env, passed: [] }, undefined, 'launcher');
    const runner = startLineRunner(1, { launcher: launch.launcher });
    const outcome = runner.run({ ...launch, env, timeoutMs: 4000 }, () => undefined);
    outcome.catch(() => undefined); // A failed assertion below closes the runner first.
    try {
      expect(await waitFor(() => processesMentioning(`sleep ${sleep}`).length === 1, 3500), 'the program started').toBe(true);
      const program = Number(processesMentioning(`sleep ${sleep}`)[0]?.split(' ')[0]);
      const init = parentOf(program);
      expect(init, 'the program has a parent').not.toBeNull();
      expect(readFileSync(`/proc/${init}/cmdline`, 'utf8')).toMatch(/contain-[0-9a-f]+\0serve/);
      expect(spawnersOf(process.pid)).toContain(parentOf(init as number));
      expect(await outcome).toMatchObject({ timedOut: true, signal: 'SIGKILL' });
      expect(await waitFor(() => parentOf(init as number) === null && processesMentioning(`sleep ${sleep}`).length === 0, 2000)).toBe(true);
    } finally {
      await runner.close();
      for (const line of processesMentioning(`sleep ${sleep}`)) process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    }
  });

  // Root reaches another user's folders by its capabilities on the host, which the clone's child
  // has not: refused its working folder there, the helper starts it again, forked, as before.
  it.skipIf(!namespaced || !launcherBuilt || process.getuid?.() !== 0)("as root, starts in a working folder reached only through another user's private folder", async () => {
    const outer = tempDir('agentdevel-private-');
    const inner = path.join(outer, 'blueprint');
    mkdirSync(inner);
    chmodSync(inner, 0o755);
    writeFileSync(path.join(inner, 'note'), 'here\n', { mode: 0o644 });
    chownSync(outer, 4242, 4242);
    chmodSync(outer, 0o700);
    const launch = await untrustedCommand(['cat', 'note'], 64, { parentEnv: env, passed: [] }, undefined, 'launcher');
    const runner = startLineRunner(1, { launcher: launch.launcher });
    try {
      const lines: string[] = [];
      const outcome = await runner.run({ ...launch, cwd: inner, env, timeoutMs: 20_000 }, (line) => lines.push(line));
      expect(outcome).toMatchObject({ exitCode: 0, spawnError: null });
      expect(lines).toEqual(['here']);
    } finally {
      await runner.close();
    }
  });
});
