import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEnvironment, loadBlueprint } from '../../src/adapters/blueprint/load.ts';
import { startRuntime } from '../../src/adapters/runtimes/index.ts';
import type { Runtime } from '../../src/domain/ports/runtime.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { createClaudeEngine } from '../../src/adapters/engines/anthropic/adapter.ts';
import { createMessagesClient } from '../../src/adapters/engines/anthropic/messages-client.ts';
import { scaffoldExample } from '../../src/app/example.ts';
import { loadSplit, loadTask } from '../../src/adapters/task/load.ts';
import { startFakeAnthropic, type FakeAnthropic, type FakeRequest } from '../helpers/fake-anthropic.ts';
import { mockBrain } from '../helpers/fake-brain.ts';
import { tempDir } from '../helpers/workspace.ts';

const facts = { today: '2026-11-23', node: process.version, builtins: { available: [], missing: [] } };
let server: FakeAnthropic;
let workspace: string;
let runtime: Runtime;

beforeAll(async () => {
  server = await startFakeAnthropic(mockBrain);
  workspace = path.join(tempDir('agentdevel-crew-'), 'ws');
  await scaffoldExample(workspace, 'orders-crew');
  const build = tempDir('agentdevel-build-');
  const blueprint = await loadBlueprint(workspace, 'orders-crew', build);
  const task = await loadTask(workspace, 'orders');
  const environmentBundle = await bundleEnvironment(task.environmentModule as string, build);
  const send = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries: 1, timeoutMs: 10_000 });
  const model = createClaudeEngine(send, () => undefined, facts);
  runtime = await startRuntime({ blueprint, environmentBundle, model, agentModel: 'claude-sonnet-5-5', callTimeoutMs: 5000, memoryMb: 128, passEnv: [], gradingPaths: ['expected'], parentEnv: {} });
});
afterAll(async () => {
  await runtime.close();
  await server.close();
});

/** Which agent a request was for, by the first words of its system prompt. */
function agentOf(request: FakeRequest): string {
  const system = JSON.stringify(request.body.system);
  return /You are (lookup|refunds|delivery-notes)\b/.exec(system)?.[1] ?? (system.includes('You are the orchestrator') ? 'orchestrator' : 'unknown');
}

const toolNames = (request: FakeRequest): string[] => ((request.body.tools as Array<{ name: string }> | undefined) ?? []).map((t) => t.name).sort();

describe('the crew runtime on the Messages API', () => {
  it("keeps the user's request from a member whose view excludes it, and gives each agent only its own tools", async () => {
    const cases = await loadSplit(await loadTask(workspace, 'orders'), 'train');
    const testCase = cases.find((c) => c.id === 'train-001');
    const opening = "I'd like to return the desk lamp from order W1001";
    expect(JSON.stringify(testCase)).toContain(opening);
    const events: TraceEvent[] = [];
    const before = server.requests.length;
    const outcome = await runtime.runCase(testCase as never, 0, { emit: (event) => events.push(event) });
    expect(String(outcome.output)).toContain('54.10');

    const requests = server.requests.slice(before);
    const byAgent = (agent: string) => requests.filter((r) => agentOf(r) === agent);
    // lookup sees ["context"] only: its requests never carry the customer's words.
    expect(byAgent('lookup').length).toBeGreaterThan(0);
    for (const request of byAgent('lookup')) {
      expect(request.raw).not.toContain(opening);
      expect(request.raw).toContain('Context from the orchestrator:');
      expect(toolNames(request)).toEqual(['find_customer', 'get_order', 'list_orders']);
    }
    // refunds sees ["context", "request", "lookup"]: the same request reaches it, with lookup's result,
    // so the check above is one that can fail.
    expect(byAgent('refunds').length).toBeGreaterThan(0);
    for (const request of byAgent('refunds')) {
      expect(request.raw).toContain(opening);
      expect(request.raw).toContain('Results of lookup:');
      expect(toolNames(request)).toEqual(['cancel_order', 'return_items']);
    }
    // The orchestrator talks to the customer and calls its members as tools.
    for (const request of byAgent('orchestrator')) expect(toolNames(request)).toEqual(['delivery-notes', 'lookup', 'refunds']);
    expect(requests.every((r) => agentOf(r) !== 'unknown')).toBe(true);

    // Every event names the agent that produced it; member tool calls carry the member's name.
    expect(events.filter((e) => e.type !== 'start').every((e) => typeof e.agent === 'string')).toBe(true);
    expect(events.find((e) => e.type === 'tool_call' && e.name === 'return_items')?.agent).toBe('refunds');
    expect(events.find((e) => e.type === 'tool_call' && e.name === 'get_order')?.agent).toBe('lookup');
    expect(events.find((e) => e.type === 'tool_call' && e.name === 'lookup')?.agent).toBe('orchestrator');
    // No prompt reaches the trace.
    expect(JSON.stringify(events)).not.toContain('You are lookup');
  });
});
