import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEnvironment, loadBlueprint } from '../../src/adapters/blueprint/load.ts';
import { startRuntime } from '../../src/adapters/runtimes/index.ts';
import type { Runtime } from '../../src/domain/ports/runtime.ts';
import { AgentdevelError } from '../../src/domain/errors.ts';
import { InfraError } from '../../src/domain/ports/model.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { createMockEngine } from '../../src/adapters/engines/mock/index.ts';
import { loadSplit, loadTask } from '../../src/adapters/task/load.ts';
import { runCollected } from '../helpers/run-cases.ts';
import { scriptedModel } from '../helpers/scripted-model.ts';
import { exampleWorkspace, tempDir } from '../helpers/workspace.ts';
import { until } from '../helpers/waits.ts';
import { spawnersOf } from '../helpers/processes.ts';

let workspace: string;
const runtimes: Runtime[] = [];

async function toolLoop(dir: string, model = createMockEngine()): Promise<Runtime> {
  const build = tempDir('agentdevel-build-');
  const blueprint = await loadBlueprint(dir, 'support-agent', build);
  const task = await loadTask(dir, 'orders');
  const environmentBundle = await bundleEnvironment(task.environmentModule as string, build);
  const runtime = await startRuntime({ blueprint, environmentBundle, model, agentModel: 'mock', callTimeoutMs: 5000, memoryMb: 128, passEnv: [], gradingPaths: ['expected'], parentEnv: {} });
  runtimes.push(runtime);
  return runtime;
}

function collect(): { events: TraceEvent[]; emit(event: TraceEvent): void } {
  const events: TraceEvent[] = [];
  return { events, emit: (event) => events.push(event) };
}

beforeAll(async () => {
  workspace = await exampleWorkspace();
});
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
});

describe('the tool-loop runtime', () => {
  it('runs a case through the sandboxed tool host and reports the environment state', async () => {
    const runtime = await toolLoop(workspace);
    const task = await loadTask(workspace, 'orders');
    const testCase = (await loadSplit(task, 'train')).find((c) => c.id === 'train-001');
    const sink = collect();
    const outcome = await runtime.runCase(testCase as never, 0, sink);
    expect(sink.events.map((e) => e.type)).toContain('tool_call');
    expect(sink.events.at(-1)).toMatchObject({ type: 'final' });
    expect(outcome.observation?.state).toEqual(outcome.observation?.expectedState);
    expect(String(outcome.output)).toContain('54.10');
  });

  it('never puts the system prompt or tool code into the trace', async () => {
    const canary = 'CANARY-7f3a91-blueprint-internal';
    const dir = await exampleWorkspace();
    const prompt = path.join(dir, 'blueprints/support-agent/system.hbs');
    writeFileSync(prompt, `${readFileSync(prompt, 'utf8')}\nInternal note ${canary}.\n`);
    const wrapper = path.join(dir, 'blueprints/support-agent/tools/get_order.ts');
    writeFileSync(wrapper, `${readFileSync(wrapper, 'utf8')}\n// ${canary}\n`);
    const runtime = await toolLoop(dir);
    const task = await loadTask(dir, 'orders');
    const sink = collect();
    await runtime.runCase((await loadSplit(task, 'train'))[0] as never, 0, sink);
    expect(JSON.stringify(sink.events)).not.toContain(canary);
  });

  it('turns a throwing tool wrapper into failed tool results, not a crash', async () => {
    const dir = await exampleWorkspace();
    writeFileSync(
      path.join(dir, 'blueprints/support-agent/tools/get_order.ts'),
      "import { z } from 'zod';\nexport default { name: 'get_order', description: 'd', inputSchema: z.object({ order_id: z.string() }), run: () => { throw new Error('wrapper exploded'); } };\n",
    );
    const runtime = await toolLoop(dir);
    const task = await loadTask(dir, 'orders');
    const sink = collect();
    await runtime.runCase((await loadSplit(task, 'train'))[0] as never, 0, sink);
    expect(sink.events).toContainEqual(expect.objectContaining({ type: 'tool_result', ok: false, error: 'wrapper exploded' }));
  });

  it('refuses a blueprint whose wrapper does not export a tool, naming the file', async () => {
    const dir = await exampleWorkspace();
    writeFileSync(path.join(dir, 'blueprints/support-agent/tools/get_order.ts'), 'export default { name: 42 };\n');
    await expect(toolLoop(dir)).rejects.toThrow(/blueprints\/support-agent\/tools\/get_order\.ts: "name" must be/);
  });

  it('refuses a blueprint whose wrapper does not compile, naming the file and line', async () => {
    const dir = await exampleWorkspace();
    writeFileSync(path.join(dir, 'blueprints/support-agent/tools/get_order.ts'), "import { z } from 'zod';\nexport default {{ oops\n");
    const error = await toolLoop(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentdevelError);
    expect((error as AgentdevelError).message).toMatch(/tools\/get_order\.ts:2/);
  });

  it('refuses a wrapper that imports a file outside its blueprint (the bundler reads nothing else)', async () => {
    const dir = await exampleWorkspace();
    writeFileSync(path.join(dir, 'secret.json'), '{"key": "sk-do-not-bundle"}');
    writeFileSync(
      path.join(dir, 'blueprints/support-agent/tools/get_order.ts'),
      "import { z } from 'zod';\nimport secret from '../../../secret.json';\nexport default { name: 'get_order', description: 'd', inputSchema: z.object({ order_id: z.string() }), run: () => secret };\n",
    );
    const error = await toolLoop(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentdevelError);
    expect((error as AgentdevelError).message).toMatch(/secret\.json is outside the folder being bundled/);
  });

  it('keeps a tool wrapper from reading files or the environment', async () => {
    const dir = await exampleWorkspace();
    writeFileSync(
      path.join(dir, 'blueprints/support-agent/tools/get_order.ts'),
      "import { z } from 'zod';\nimport fs from 'node:fs';\nexport default { name: 'get_order', description: 'd', inputSchema: z.object({ order_id: z.string() }), run: () => { const a = (() => { try { return fs.readFileSync('/etc/hostname', 'utf8'); } catch (e) { return 'file denied'; } })(); const b = (() => { try { return process.env.HOME; } catch (e) { return 'env denied'; } })(); return { a, b }; } };\n",
    );
    const runtime = await toolLoop(dir);
    const task = await loadTask(dir, 'orders');
    const sink = collect();
    await runtime.runCase((await loadSplit(task, 'train'))[0] as never, 0, sink);
    expect(sink.events).toContainEqual(expect.objectContaining({ type: 'tool_result', ok: true, result: { a: 'file denied', b: 'env denied' } }));
  });
});

describe('tool hosts', () => {
  it('keep a wrapper that hangs on one case from failing the cases running beside it', async () => {
    const dir = await exampleWorkspace();
    const wrapper = path.join(dir, 'blueprints/support-agent/tools/get_order.ts');
    writeFileSync(wrapper, readFileSync(wrapper, 'utf8').replace('run: (args', "run: (args: { order_id: string }, ctx: never) => { if (args.order_id === 'W1001') { for (;;) {} } return run2(args, ctx); },\n  run2: (args"));
    writeFileSync(wrapper, readFileSync(wrapper, 'utf8').replace('return run2(args, ctx);', 'return (ctx as { env: { getOrder(id: string): unknown } }).env.getOrder(args.order_id);'));
    const build = tempDir('agentdevel-build-');
    const blueprint = await loadBlueprint(dir, 'support-agent', build);
    const task = await loadTask(dir, 'orders');
    const environmentBundle = await bundleEnvironment(task.environmentModule as string, build);
    const model = createMockEngine();
    const runtime = await startRuntime({ blueprint, environmentBundle, model, agentModel: 'mock', callTimeoutMs: 1500, memoryMb: 128, passEnv: [], gradingPaths: ['expected'], parentEnv: {} });
    runtimes.push(runtime);
    const cases = (await loadSplit(task, 'train')).slice(0, 8);
    const { records } = await runCollected(
      { runId: 'run-h', cases, trials: 1, concurrency: 4, rubric: task.rubric, scorers: task.manifest.scorers, taskRoot: task.root, criticModel: 'mock', growTaxonomy: true },
      { runtime, model },
    );
    const { records: reference } = await runCollected(
      { runId: 'run-r', cases, trials: 1, concurrency: 1, rubric: task.rubric, scorers: task.manifest.scorers, taskRoot: task.root, criticModel: 'mock', growTaxonomy: true },
      { runtime: await toolLoop(workspace), model },
    );
    const hung = records.find((r) => r.caseId === 'train-001');
    expect(hung?.pass).toBe(false);
    expect(hung?.critic?.label).toBe('agent_error');
    expect(hung?.critic?.description).toMatch(/did not answer "call" within 1500 ms/);
    for (const record of records.filter((r) => r.caseId !== 'train-001')) {
      expect([record.caseId, record.pass]).toEqual([record.caseId, reference.find((r) => r.caseId === record.caseId)?.pass]);
    }
  });
});

describe('the command runtime', () => {
  it('runs any executable: case on stdin, trace events as JSON lines on stdout', async () => {
    const dir = tempDir('agentdevel-cmd-');
    mkdirSync(path.join(dir, 'blueprints/echo'), { recursive: true });
    writeFileSync(path.join(dir, 'blueprints/echo/blueprint.json'), JSON.stringify({ runtime: 'command', command: [process.execPath, 'agent.mjs'] }));
    writeFileSync(
      path.join(dir, 'blueprints/echo/agent.mjs'),
      `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
        const c = JSON.parse(s);
        const out = (e) => console.log(JSON.stringify(e));
        out({ type: 'start' });
        out({ type: 'message', role: 'assistant', text: 'thinking about ' + c.question });
        console.log('not json');
        out({ type: 'message', role: 'assistant', content: 'no text key' });
        out({ type: 'thought', text: 'unknown type' });
        out({ type: 'final', output: { answer: c.question.toUpperCase(), sawExpected: 'expected' in c, sawKey: process.env.SECRET_KEY ?? null } });
      });`,
    );
    const build = tempDir('agentdevel-build-');
    const blueprint = await loadBlueprint(dir, 'echo', build);
    const runtime = await startRuntime({ blueprint, environmentBundle: null, model: createMockEngine(), agentModel: 'mock', callTimeoutMs: 5000, memoryMb: 128, passEnv: [], gradingPaths: ['expected'], parentEnv: { SECRET_KEY: 'sk-123456789', PATH: process.env.PATH } });
    const sink = collect();
    const outcome = await runtime.runCase({ id: 'q1', question: 'hello', expected: { answer: 'HELLO' } }, 0, sink);
    expect(outcome.output).toEqual({ answer: 'HELLO', sawExpected: false, sawKey: null });
    expect(sink.events).toContainEqual({ type: 'message', role: 'assistant', text: 'thinking about hello' });
    expect(sink.events).toContainEqual({ type: 'error', kind: 'agent', message: 'stdout line 3 is not JSON' });
    // The agent's own start event is accepted (README lists it); a bad event says what was wrong with it.
    expect(sink.events.filter((e) => e.type === 'error').map((e) => (e.type === 'error' ? e.message : ''))).toEqual([
      'stdout line 3 is not JSON',
      expect.stringMatching(/^stdout line 4 is not a trace event: a "message" event: "text": .*expected string/),
      expect.stringMatching(/^stdout line 5 is not a trace event: "type" is "thought"; expected one of start, message, tool_call/),
    ]);
  });

  it('prepare starts its spawner before any case-trial; close stops it, and a close that comes while prepare probes leaves none', async () => {
    const dir = tempDir('agentdevel-cmd-');
    mkdirSync(path.join(dir, 'blueprints/sleeper'), { recursive: true });
    writeFileSync(path.join(dir, 'blueprints/sleeper/blueprint.json'), JSON.stringify({ runtime: 'command', command: ['sh', '-c', 'cat >/dev/null; echo {}'] }));
    const blueprint = await loadBlueprint(dir, 'sleeper', tempDir('agentdevel-build-'));
    const start = () => startRuntime({ blueprint, environmentBundle: null, model: createMockEngine(), agentModel: 'mock', callTimeoutMs: 5000, memoryMb: 128, passEnv: [], gradingPaths: ['expected'], parentEnv: { PATH: process.env.PATH } });
    const spawners = () => spawnersOf(process.pid);
    const before = spawners().length;
    const runtime = await start();
    await runtime.prepare?.();
    expect(spawners().length).toBe(before + 1);
    await runtime.close();
    await until(() => spawners().length === before, 5000, 'the spawner to stop');
    // Closed while its probes are still pending: nothing is left running.
    const raced = await start();
    const preparing = raced.prepare?.();
    await raced.close();
    await expect(preparing).rejects.toThrow(/closed/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(spawners().length).toBe(before);
  });
});

describe('the run stage', () => {
  it('records infrastructure failures as infra_error, never as fails', async () => {
    let calls = 0;
    const flaky = scriptedModel({
      agentTurn: async (request) => {
        calls += 1;
        if (calls % 2 === 0) throw new InfraError('agent', '529 overloaded after 3 retries');
        return createMockEngine().agentTurn(request);
      },
    });
    const runtime = await toolLoop(workspace, flaky);
    const task = await loadTask(workspace, 'orders');
    const { records, counts } = await runCollected(
      { runId: 'run-t', cases: (await loadSplit(task, 'train')).slice(0, 4), trials: 1, concurrency: 1, rubric: task.rubric, scorers: task.manifest.scorers, taskRoot: task.root, criticModel: 'mock', growTaxonomy: true },
      { runtime, model: flaky },
    );
    const infra = records.filter((r) => r.status === 'infra_error');
    expect(infra.length).toBeGreaterThan(0);
    for (const record of infra) {
      expect(record.pass).toBeNull();
      expect(record.error).toMatch(/529 overloaded/);
    }
    expect(records).toHaveLength(4);
    expect(counts).toEqual({ caseTrials: 4, graded: 4 - infra.length, passed: records.filter((r) => r.pass).length, infraErrors: infra.length });
  });
});

describe('the critic policy', () => {
  it.each([
    ['all', (passing: number, failing: number) => passing + failing],
    ['failing', (_passing: number, failing: number) => failing],
    ['off', () => 0],
  ] as const)('"%s" asks the critic only where it should; spared passing case-trials are "ok"', async (policy, expectedCalls) => {
    let calls = 0;
    const counting = scriptedModel({
      criticize: async (request) => {
        calls += 1;
        return createMockEngine().criticize(request);
      },
    });
    const runtime = await toolLoop(workspace, counting);
    const task = await loadTask(workspace, 'orders');
    const { records } = await runCollected(
      { runId: `run-${policy}`, cases: (await loadSplit(task, 'train')).slice(0, 8), trials: 1, concurrency: 2, rubric: task.rubric, scorers: task.manifest.scorers, taskRoot: task.root, criticModel: 'mock', criticPolicy: policy, growTaxonomy: true },
      { runtime, model: counting },
    );
    const passing = records.filter((r) => r.pass === true);
    const failing = records.filter((r) => r.pass === false);
    expect(passing.length).toBeGreaterThan(0);
    expect(failing.length).toBeGreaterThan(0);
    expect(calls).toBe(expectedCalls(passing.length, failing.length));
    if (policy !== 'all') for (const record of passing) expect(record.critic?.label ?? 'ok').toBe('ok');
    if (policy !== 'off') for (const record of failing) expect(record.critic?.pass).toBe(false);
    else for (const record of failing) expect(record.critic).toBeNull();
  });
});
