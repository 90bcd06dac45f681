// Tool hosts are pooled: a few hosts serve many case-trials at once. What the sessions of a host
// share (module state) and do not share (environment, ctx), how many hosts a concurrency gets,
// and what a host that crashes under several sessions means for each of them: never a fail for
// a case-trial that did not cause it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleEnvironment, loadBlueprint } from '../../src/adapters/blueprint/load.ts';
import { startRuntime } from '../../src/adapters/runtimes/index.ts';
import { hostCount } from '../../src/adapters/runtimes/tool-host/pool.ts';
import type { AgentTurn, AssistantBlock } from '../../src/domain/ports/model.ts';
import { zeroUsage } from '../../src/domain/ports/model.ts';
import type { Runtime } from '../../src/domain/ports/runtime.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { readTrace } from '../../src/stages/run/trace-file.ts';
import { runCollected } from '../helpers/run-cases.ts';
import { scriptedModel } from '../helpers/scripted-model.ts';
import { processesMentioning, tempDir } from '../helpers/workspace.ts';

const REMEMBER = `import { z } from 'zod';
// Module state: one counter per host, whatever the session.
let calls = 0;
export default {
  name: 'remember',
  description: 'Notes a value.',
  inputSchema: z.object({ value: z.string() }),
  run: (args, ctx) => {
    ctx.env.note(args.value);
    return { pid: process.pid, moduleCalls: calls++, notes: ctx.env.notes() };
  },
};
`;

const BOOM = `import { z } from 'zod';
export default { name: 'boom', description: 'Ends the host.', inputSchema: z.object({}), run: () => process.exit(3) };
`;

const ENVIRONMENT = `export function createEnvironment(caseData) {
  const notes = [];
  return {
    api: { note: (value) => notes.push(value), notes: () => [...notes] },
    user: { reply: () => null },
    state: () => ({ notes: [...notes] }),
  };
}
`;

interface Fixture {
  readonly dir: string;
  readonly buildDir: string;
  start(options: { concurrency: number; isolation?: 'shared' | 'case'; model: ReturnType<typeof scriptedModel> }): Promise<Runtime>;
}

const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
});

async function fixture(): Promise<Fixture> {
  const dir = tempDir('agentdevel-pool-');
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  write('blueprints/pool/blueprint.json', JSON.stringify({ runtime: 'tool-loop', prompt: 'system.hbs', tools: ['tools/remember.ts', 'tools/boom.ts'], maxSteps: 6 }));
  write('blueprints/pool/system.hbs', 'Remember things.\n');
  write('blueprints/pool/tools/remember.ts', REMEMBER);
  write('blueprints/pool/tools/boom.ts', BOOM);
  write('rubrics/pool/environment/index.ts', ENVIRONMENT);
  const buildDir = tempDir('agentdevel-pool-build-');
  const blueprint = await loadBlueprint(dir, 'pool', buildDir);
  const environmentBundle = await bundleEnvironment(path.join(dir, 'rubrics/pool/environment/index.ts'), buildDir);
  return {
    dir,
    buildDir,
    start: async ({ concurrency, isolation, model }) => {
      const runtime = await startRuntime({ blueprint, environmentBundle, model, agentModel: 'mock', callTimeoutMs: 10_000, memoryMb: 128, passEnv: [], parentEnv: {}, gradingPaths: [], concurrency, ...(isolation ? { isolation } : {}) });
      runtimes.push(runtime);
      return runtime;
    },
  };
}

/** Resolves once `size` callers have arrived (each caller waits for all). */
function barrier(size: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    arrived += 1;
    if (arrived >= size) open();
    await opened;
  };
}

const turn = (content: AssistantBlock[]): AgentTurn => ({ content, stopReason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn', usage: zeroUsage, latencyMs: 0 });
const caseOf = (seed: string | undefined): string => String(seed).split(':')[0] ?? '';
const collect = () => {
  const events: TraceEvent[] = [];
  return { events, emit: (event: TraceEvent) => events.push(event) };
};
const results = (events: readonly TraceEvent[]) =>
  events.flatMap((e) => (e.type === 'tool_result' && e.ok ? [e.result as { pid: number; moduleCalls: number; notes: string[] }] : []));

/**
 * Every case: remember its id, wait until every case has, remember it again, answer "done". The
 * waits make the sessions overlap on the host: each writes while the others are open.
 */
function rememberTwice(cases: number) {
  const first = barrier(cases);
  const second = barrier(cases);
  return scriptedModel({
    agentTurn: async (request) => {
      const id = caseOf(request.seed);
      const step = request.messages.filter((m) => m.role === 'assistant').length;
      if (step === 0) {
        await first();
        return turn([{ type: 'tool_use', id: `${id}-1`, name: 'remember', input: { value: id } }]);
      }
      if (step === 1) {
        await second();
        return turn([{ type: 'tool_use', id: `${id}-2`, name: 'remember', input: { value: id } }]);
      }
      return turn([{ type: 'text', text: 'done' }]);
    },
  });
}

describe('shared tool hosts', () => {
  it('serve concurrent case-trials on one host, each with its own environment and ctx; module state is what they share', async () => {
    const { start } = await fixture();
    const runtime = await start({ concurrency: 2, model: rememberTwice(2) });
    const sinks = { a: collect(), b: collect() };
    const [a, b] = await Promise.all([runtime.runCase({ id: 'a', input: 'hi' }, 0, sinks.a), runtime.runCase({ id: 'b', input: 'hi' }, 0, sinks.b)]);
    const seen = { a: results(sinks.a.events), b: results(sinks.b.events) };
    // One host served both (concurrency 2 keeps one)…
    expect(new Set([...seen.a, ...seen.b].map((r) => r.pid)).size).toBe(1);
    // …and neither saw the other's notes, in its calls or in its final state.
    expect(seen.a.map((r) => r.notes)).toEqual([['a'], ['a', 'a']]);
    expect(seen.b.map((r) => r.notes)).toEqual([['b'], ['b', 'b']]);
    expect(a.observation?.state).toEqual({ notes: ['a', 'a'] });
    expect(b.observation?.state).toEqual({ notes: ['b', 'b'] });
    // The wrapper's module-level counter is the host's: the two case-trials' calls count together.
    expect([...seen.a, ...seen.b].map((r) => r.moduleCalls).sort()).toEqual([0, 1, 2, 3]);
  });

  it('with isolation "case", give each case-trial a host of its own: no module state crosses', async () => {
    const { start } = await fixture();
    const runtime = await start({ concurrency: 2, isolation: 'case', model: rememberTwice(2) });
    const sinks = { a: collect(), b: collect() };
    await Promise.all([runtime.runCase({ id: 'a', input: 'hi' }, 0, sinks.a), runtime.runCase({ id: 'b', input: 'hi' }, 0, sinks.b)]);
    const seen = { a: results(sinks.a.events), b: results(sinks.b.events) };
    expect(seen.a[0]?.pid).not.toBe(seen.b[0]?.pid);
    expect(seen.a.map((r) => r.moduleCalls)).toEqual([0, 1]);
    expect(seen.b.map((r) => r.moduleCalls)).toEqual([0, 1]);
  });

  it(`are few: 16 case-trials in flight at concurrency 16 run on ${hostCount(16)} host processes`, async () => {
    const { start, buildDir } = await fixture();
    const cases = Array.from({ length: 16 }, (_, i) => `c${i}`);
    // Each case-trial opens its session, then waits in its first model turn until the hosts are counted.
    const inFlight = barrier(cases.length + 1);
    let counted!: () => void;
    const hostsCounted = new Promise<void>((resolve) => (counted = resolve));
    const model = scriptedModel({
      agentTurn: async () => {
        await inFlight();
        await hostsCounted;
        return turn([{ type: 'text', text: 'done' }]);
      },
    });
    const runtime = await start({ concurrency: 16, model });
    const running = Promise.all(cases.map((id) => runtime.runCase({ id, input: 'hi' }, 0, collect())));
    // All 16 sessions are open once all 16 case-trials wait at the barrier (and this test with them).
    await inFlight();
    // Host processes: node running host-entry.mjs over this fixture's bundles (the launching shell has exec'd into it).
    const hosts = processesMentioning(buildDir).filter((p) => p.split(' ')[1] === process.execPath && p.includes('host-entry.mjs'));
    counted();
    const outcomes = await running;
    expect(hostCount(16)).toBe(2);
    expect(hosts).toHaveLength(2);
    expect(outcomes.map((o) => o.output)).toEqual(cases.map(() => 'done'));
  });
});

describe('a shared tool host that crashes', () => {
  it('fails only the case-trial that crashes it alone; the one beside it is played again and passes, never a fail', async () => {
    const { dir, start } = await fixture();
    // "a" ends the host while "b" has a session open on it; each then plays again on a host of its own.
    const bothOpen = barrier(2);
    let aPlayedAgain!: () => void;
    const aAgain = new Promise<void>((resolve) => (aPlayedAgain = resolve));
    const firstTurns = new Map<string, number>();
    const model = scriptedModel({
      agentTurn: async (request) => {
        const id = caseOf(request.seed);
        if (request.messages.length > 1) return turn([{ type: 'text', text: 'done' }]);
        const attempt = (firstTurns.get(id) ?? 0) + 1;
        firstTurns.set(id, attempt);
        if (id === 'a') {
          if (attempt === 1) await bothOpen();
          else aPlayedAgain();
          return turn([{ type: 'tool_use', id: 'a-1', name: 'boom', input: {} }]);
        }
        // "b" calls its tool only once the host it shared with "a" is gone.
        if (attempt === 1) {
          await bothOpen();
          await aAgain;
        }
        return turn([{ type: 'tool_use', id: 'b-1', name: 'remember', input: { value: 'b' } }]);
      },
    });
    const runtime = await start({ concurrency: 2, model });
    const cases = [
      { id: 'a', input: 'hi' },
      { id: 'b', input: 'hi' },
    ];
    const { records, tracesRoot } = await runCollected(
      { runId: 'run-crash', cases, trials: 1, concurrency: 2, rubric: 'r', scorers: [{ kind: 'regex', pattern: '^done$', expect: 'match' }], taskRoot: path.join(dir, 'rubrics/pool'), criticModel: 'mock', criticPolicy: 'off', growTaxonomy: false },
      { runtime, model },
    );
    const a = records.find((r) => r.caseId === 'a');
    const b = records.find((r) => r.caseId === 'b');
    // Both played a second time, alone.
    expect(Object.fromEntries(firstTurns)).toEqual({ a: 2, b: 2 });
    expect([b?.status, b?.pass, b?.agentError ?? null]).toEqual(['ok', true, null]);
    expect([a?.status, a?.pass]).toEqual(['ok', false]);
    expect(a?.agentError).toMatch(/the tool host exited \(code 3\)/);
    // The attempt on the crashed host left nothing in b's trace: one tool call, the one that counted.
    const trace = (await readTrace(tracesRoot, b?.traceRef as string)) ?? [];
    expect(trace.filter((e) => e.type === 'tool_call')).toHaveLength(1);
    expect(trace.filter((e) => e.type === 'error')).toEqual([]);
  });
});

describe('a tool host without a task environment', () => {
  const ECHO = `import { z } from 'zod';
export default { name: 'echo', description: 'Says it back.', inputSchema: z.object({ text: z.string() }), run: (args) => ({ said: args.text }) };
`;
  /** Its processes (the host, and any launcher in front of it), by the bundle only this fixture has. */
  const hostProcesses = (buildDir: string) => processesMentioning(buildDir).map((line) => Number(line.split(' ')[0]));
  const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];

  it('is sent nothing for a case-trial that calls no tool (its sessions hold nothing), and still answers tool calls', async () => {
    const dir = tempDir('agentdevel-stateless-');
    mkdirSync(path.join(dir, 'blueprints/echo/tools'), { recursive: true });
    writeFileSync(path.join(dir, 'blueprints/echo/blueprint.json'), JSON.stringify({ runtime: 'tool-loop', prompt: 'system.hbs', tools: ['tools/echo.ts'], maxSteps: 4 }));
    writeFileSync(path.join(dir, 'blueprints/echo/system.hbs'), 'Echo.\n');
    writeFileSync(path.join(dir, 'blueprints/echo/tools/echo.ts'), ECHO);
    const buildDir = tempDir('agentdevel-stateless-build-');
    const blueprint = await loadBlueprint(dir, 'echo', buildDir);
    const model = scriptedModel({
      agentTurn: async (request) => {
        const called = request.messages.some((m) => m.role === 'assistant');
        return caseOf(request.seed) === 'tool' && !called ? turn([{ type: 'tool_use', id: 't1', name: 'echo', input: { text: 'hi' } }]) : turn([{ type: 'text', text: 'done' }]);
      },
    });
    // A short time limit: a request the stopped host cannot answer would end it within 1.5 s.
    const runtime = await startRuntime({ blueprint, environmentBundle: null, model, agentModel: 'mock', callTimeoutMs: 1500, memoryMb: 128, passEnv: [], parentEnv: {}, gradingPaths: [], concurrency: 1 });
    runtimes.push(runtime);
    const first = collect();
    await runtime.runCase({ id: 'tool', input: 'hi' }, 0, first);
    expect(first.events).toContainEqual(expect.objectContaining({ type: 'tool_result', ok: true, result: { said: 'hi' } }));
    const hosts = hostProcesses(buildDir);
    expect(hosts.length).toBeGreaterThan(0);
    // The host cannot answer anything now: a case-trial that calls no tool must not need it.
    for (const pid of hosts) process.kill(pid, 'SIGSTOP');
    try {
      const quiet = collect();
      const outcome = await runtime.runCase({ id: 'quiet', input: 'hi' }, 0, quiet);
      expect(outcome.output).toBe('done');
      expect(quiet.events.filter((e) => e.type === 'error')).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      // Past the time limit, the host was never asked anything: nothing ended it.
      expect(hosts.map(state)).toEqual(hosts.map(() => 'T'));
    } finally {
      for (const pid of hosts) process.kill(pid, 'SIGCONT');
    }
    const again = collect();
    await runtime.runCase({ id: 'tool', input: 'hi' }, 1, again);
    expect(again.events).toContainEqual(expect.objectContaining({ type: 'tool_result', ok: true, result: { said: 'hi' } }));
    expect(hostProcesses(buildDir)).toEqual(hosts);
  }, 30_000);
});
