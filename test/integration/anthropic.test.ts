import { blueprintBrief } from '../../src/adapters/blueprint/brief.ts';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InfraError, type CallRole, type Usage } from '../../src/domain/ports/model.ts';
import { createClaudeEngine, StructuredOutputError } from '../../src/adapters/engines/anthropic/adapter.ts';
import { createMessagesClient } from '../../src/adapters/engines/anthropic/messages-client.ts';
import { claudeEngines } from '../../src/adapters/engines/claude.ts';
import { createRateLimiter } from '../../src/adapters/engines/anthropic/rate-limits.ts';
import { tempDir } from '../helpers/workspace.ts';
import { startFakeAnthropic, toolAnswer, type FakeAnthropic, type FakeReply, type FakeRequest } from '../helpers/fake-anthropic.ts';
import { schemaOnlyAnswer } from '../helpers/schema-only-answer.ts';

const userText = (request: FakeRequest | undefined): string => JSON.stringify((request?.body.messages as Array<{ content: unknown }>)[0]?.content ?? '');

let server: FakeAnthropic | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const verdict = { pass: false, label: 'tool_error', description: 'get_order failed' };
const facts = { today: '2031-02-03', node: 'v20.99.0', builtins: { available: ['structuredClone'], missing: ['Object.groupBy'] } };
const emptyReport = { summary: '', totals: { records: 0, failing: 0, infraErrors: 0 }, dominantSymptoms: [], patterns: [], representativeCases: [], affectedSurface: [] };
const criticRequest = {
  model: 'claude-sonnet-5-5',
  rubric: 'RUBRIC: the agent must confirm before cancelling.',
  trace: [{ type: 'message' as const, role: 'user' as const, text: 'cancel W1' }],
  scorer: null,
  taxonomy: [{ label: 'tool_error', description: 'a tool failed' }],
};

const synthesisRequest = {
  model: 'claude-sonnet-5-5',
  blueprintName: 'bp',
  blueprintRoot: 'blueprints/bp',
  blueprint: blueprintBrief('tool-loop'),
  evidence: { budgetTokens: 0, usedTokens: 0, symptoms: [] },
  files: [],
  diagnosis: emptyReport,
  history: [],
  taxonomy: [
    { label: 'missing_required_step', description: 'acted without confirmation' },
    { label: 'tool_error', description: 'a tool failed' },
  ],
  task: { rubric: 'RUBRIC', environmentApi: '- ctx.env.getOrder(orderId: string): Order' },
  repair: null,
};

async function engineAgainst(replies: FakeReply[], maxRetries = 3) {
  let next = 0;
  server = await startFakeAnthropic(() => replies[Math.min(next++, replies.length - 1)] as FakeReply);
  const ledger: Array<{ role: CallRole; model: string; usage: Usage }> = [];
  const send = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries, timeoutMs: 10_000 });
  return { engine: createClaudeEngine(send, (role, model, usage) => ledger.push({ role, model, usage }), facts), ledger, server };
}

describe('the Claude engine against a fake Messages API', () => {
  it('gets a critic verdict through forced tool use, with the role header, prompt caching and the cost recorded', async () => {
    const { engine, ledger, server: fake } = await engineAgainst([toolAnswer('submit_verdict', verdict, { input_tokens: 1000, output_tokens: 100 })]);
    const answer = await engine.criticize(criticRequest);
    expect(answer.value).toEqual(verdict);
    const request = fake.requests[0];
    expect(request?.headers['x-agentdevel-role']).toBe('critic');
    expect(`${request?.headers['x-api-key'] ?? ''} ${request?.headers.authorization ?? ''}`).toContain('sk-test-key-0123456789');
    expect(request?.body.tool_choice).toEqual({ type: 'tool', name: 'submit_verdict' });
    const system = request?.body.system as Array<{ text: string; cache_control?: unknown }>;
    expect(system.find((b) => b.text.includes('RUBRIC:'))?.cache_control).toEqual({ type: 'ephemeral' });
    expect(ledger).toEqual([{ role: 'critic', model: 'claude-sonnet-5-5', usage: expect.objectContaining({ inputTokens: 1000, outputTokens: 100 }) }]);
    // $3 per million input and $15 per million output tokens.
    expect(ledger[0]?.usage.costUsd).toBeCloseTo(0.003 + 0.0015, 8);
  });

  it.each<[string, FakeReply]>([
    ['429 with retry-after', { kind: 'error', status: 429, headers: { 'retry-after': '0.2' } }],
    ['529 overloaded', { kind: 'error', status: 529, headers: { 'retry-after': '0.01' } }],
    ['500', { kind: 'error', status: 500, headers: { 'retry-after': '0.01' } }],
    ['a connection reset', { kind: 'reset' }],
    ['a malformed body', { kind: 'malformed' }],
  ])('retries after %s', async (name, fault) => {
    const started = Date.now();
    const { engine, server: fake } = await engineAgainst([fault, fault, toolAnswer('submit_verdict', verdict)]);
    expect((await engine.criticize(criticRequest)).value).toEqual(verdict);
    expect(fake.requests).toHaveLength(3);
    if (name.startsWith('429')) expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('reports an infrastructure error, never a verdict, when the retries run out', async () => {
    const { engine, server: fake } = await engineAgainst([{ kind: 'error', status: 529, headers: { 'retry-after': '0.01' } }], 2);
    const error = await engine.criticize(criticRequest).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InfraError);
    expect((error as InfraError).role).toBe('critic');
    expect((error as Error).message).toMatch(/529 after 2 retries/);
    expect(fake.requests).toHaveLength(3);
  });

  it('keeps many concurrent calls within a rate limit it learns from the headers: all answered, few refused, none an infrastructure error', async () => {
    server = await startFakeAnthropic(() => toolAnswer('submit_verdict', verdict), { requestsPerMinute: 600, burst: 3, latencyMs: 20 });
    const limiter = createRateLimiter();
    const send = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries: 1, timeoutMs: 10_000, limiter });
    const engine = createClaudeEngine(send, () => undefined, facts);
    const started = Date.now();
    const answers = await Promise.allSettled(Array.from({ length: 24 }, () => engine.criticize(criticRequest)));
    expect(answers.filter((a) => a.status === 'rejected')).toEqual([]);
    expect(server.limited.accepted).toBe(24);
    // Unpaced, 21 of the first 24 would be refused at once, and again at each synchronized retry.
    expect(server.limited.refused).toBeLessThanOrEqual(4);
    // 3 at once, then one per 100 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('keeps to the limit of an API that sends no rate-limit headers, from its 429s alone: every call answered, none an infrastructure error', async () => {
    server = await startFakeAnthropic(() => toolAnswer('submit_verdict', verdict), { requestsPerMinute: 600, burst: 10, latencyMs: 50, headers: false });
    const limiter = createRateLimiter();
    const send = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries: 1, timeoutMs: 30_000, limiter });
    const engine = createClaudeEngine(send, () => undefined, facts);
    const answers = await Promise.allSettled(Array.from({ length: 70 }, () => engine.criticize(criticRequest)));
    expect(answers.filter((a) => a.status === 'rejected')).toEqual([]);
    expect(server.limited.accepted).toBe(70);
    // The share of the limit used is measured by bench/rate-limit.ts, not here.
    expect(server.limited.refused).toBeGreaterThan(0);
  }, 30_000);

  it('waits out 429s beyond maxRetries (the API works, the call was early), but not past its deadline', async () => {
    let refusals = 0;
    server = await startFakeAnthropic(() => (refusals++ < 4 ? { kind: 'error', status: 429, headers: { 'retry-after': '0.05' } } : toolAnswer('submit_verdict', verdict)));
    const patient = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries: 1, timeoutMs: 10_000, limiter: createRateLimiter() });
    expect((await createClaudeEngine(patient, () => undefined, facts).criticize(criticRequest)).value).toEqual(verdict);
    expect(server.requests).toHaveLength(5);

    server.respond = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '0.1' } });
    const hurried = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries: 1, timeoutMs: 10_000, limiter: createRateLimiter(), rateLimitWaitMs: 600 });
    const error = await createClaudeEngine(hurried, () => undefined, facts).criticize(criticRequest).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InfraError);
    expect((error as Error).message).toMatch(/429/);
  });

  it.each<[string, number, 'agent' | 'critic', RegExp]>([
    ['a refused key is a configuration error (exit 2) that says the key was sent and refused', 401, 'critic', /API_KEY_REJECTED the model API refused the API key for the critic \(401/],
    ['a key without access is a configuration error too', 403, 'critic', /API_KEY_REJECTED .*access/],
    ['an unknown model is a configuration error naming the key', 404, 'critic', /CONFIG_INVALID.*models\.critic/],
    ["an agent request the API refuses is the agent's failure", 400, 'agent', /AgentRequestRejected/],
    ["a critic request the API refuses is an infrastructure error, not a fail", 413, 'critic', /InfraError/],
  ])('classifies errors: %s', async (_name, status, role, expected) => {
    const { engine, server: fake } = await engineAgainst([{ kind: 'error', status, type: 'invalid_request_error' }]);
    const call =
      role === 'agent'
        ? engine.agentTurn({ model: 'claude-sonnet-5-5', system: 's', tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], maxTokens: 10, seed: '0' })
        : engine.criticize(criticRequest);
    const error = (await call.catch((e: unknown) => e)) as Error & { code?: string };
    expect(`${error.name} ${error.code ?? ''} ${error.message}`).toMatch(expected);
    expect(fake.requests).toHaveLength(1);
  });

  it('lets a bug of its own (not a malformed response) through as itself, sent once, never as an infrastructure error', async () => {
    let requests = 0;
    server = await startFakeAnthropic(() => {
      requests += 1;
      return toolAnswer('submit_verdict', verdict);
    });
    const send = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries: 3, timeoutMs: 10_000 });
    const circular: Record<string, unknown> = { model: 'claude-sonnet-5-5', max_tokens: 10, messages: [] };
    circular.metadata = circular;
    const error = await send('critic', circular as never, { stream: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).not.toBeInstanceOf(InfraError);
    expect(requests).toBe(0);
  });

  it('repairs an invalid structured output once', async () => {
    const { engine, server: fake } = await engineAgainst([toolAnswer('submit_verdict', { pass: 'maybe', label: 'Bad Label' }), toolAnswer('submit_verdict', verdict)]);
    expect((await engine.criticize(criticRequest)).value).toEqual(verdict);
    const repair = fake.requests[1]?.body.messages as Array<{ role: string; content: unknown }>;
    expect(repair).toHaveLength(3);
    expect(JSON.stringify(repair[2])).toMatch(/does not match the schema.*pass/);
  });

  it('counts an output that stays invalid after the repair as an error (not a fail)', async () => {
    const { engine, ledger } = await engineAgainst([toolAnswer('submit_verdict', { pass: 'maybe' })]);
    await expect(engine.criticize(criticRequest)).rejects.toBeInstanceOf(StructuredOutputError);
    expect(ledger).toHaveLength(2);
  });

  it('streams the synthesizer answer (server-sent events) and validates it', async () => {
    const candidate = { edits: [{ path: 'blueprints/bp/system.hbs', content: 'Be precise.', type: 'revise' as const, component: 'agent' }], intent: { targets: ['tool_error'], rationale: 'r' } };
    const { engine, server: fake } = await engineAgainst([toolAnswer('submit_release_candidate', candidate)]);
    const answer = await engine.synthesize(synthesisRequest);
    expect(answer.value).toEqual(candidate);
    expect(fake.requests[0]?.body.stream).toBe(true);
    expect(fake.requests[0]?.headers['x-agentdevel-role']).toBe('synthesizer');
  });

  it('refuses a target outside the taxonomy in the tool schema itself, and repairs it', async () => {
    const edits = [{ path: 'blueprints/bp/tools/order-id.ts', content: 'export const x = 1;', type: 'add' as const, component: 'tool:get_order' }];
    const coined = { edits, intent: { targets: ['order_id_not_canonical'], rationale: 'normalise ids' } };
    const fixed = { edits, intent: { targets: ['tool_error'], rationale: 'normalise ids' } };
    const { engine, server: fake } = await engineAgainst([toolAnswer('submit_release_candidate', coined), toolAnswer('submit_release_candidate', fixed)]);
    expect((await engine.synthesize(synthesisRequest)).value).toEqual(fixed);
    const tools = fake.requests[0]?.body.tools as Array<{ input_schema: { properties: { intent: { properties: { targets: { items: { enum: string[] } } } } } } }>;
    expect(tools[0]?.input_schema.properties.intent.properties.targets.items.enum).toEqual(['missing_required_step', 'tool_error']);
    const repair = JSON.stringify(fake.requests[1]?.body.messages);
    expect(repair).toContain('order_id_not_canonical');
    expect(repair).toMatch(/intent\.targets\.0: Invalid option: expected one of \\"missing_required_step\\"\|\\"tool_error\\"/);
  });

  it('requires every edit typed in the tool schema itself, and repairs an untyped answer', async () => {
    const intent = { targets: ['tool_error'], rationale: 'r' };
    const untyped = { edits: [{ path: 'blueprints/bp/system.hbs', content: 'Be precise.' }], intent };
    const typed = { edits: [{ path: 'blueprints/bp/system.hbs', content: 'Be precise.', type: 'revise', component: 'agent' }], intent };
    const { engine, server: fake } = await engineAgainst([toolAnswer('submit_release_candidate', untyped), toolAnswer('submit_release_candidate', typed)]);
    expect((await engine.synthesize(synthesisRequest)).value).toEqual(typed);
    const tools = fake.requests[0]?.body.tools as Array<{ input_schema: { properties: { edits: { items: { required: string[]; properties: { type: { enum: string[] }; component: { pattern: string } } } } } } }>;
    const edit = tools[0]?.input_schema.properties.edits.items;
    expect(edit?.required).toEqual(expect.arrayContaining(['path', 'content', 'type', 'component']));
    expect(edit?.properties.type.enum).toEqual(['remove', 'revise', 'add']);
    expect(new RegExp(edit?.properties.component.pattern ?? '$^').test('tool:get_order')).toBe(true);
    // The components of this blueprint's runtime (tool-loop): no member, no orchestrator.
    expect(new RegExp(edit?.properties.component.pattern ?? '$^').test('member:lookup')).toBe(false);
    expect(JSON.stringify(fake.requests[1]?.body.messages)).toMatch(/edits\.0\.type/);
  });

  it('sends the requirements reviewer with its own role header, charged to it in the ledger', async () => {
    const { engine, ledger, server: fake } = await engineAgainst([toolAnswer('report_violations', { violations: [] })]);
    const review = await engine.reviewRequirements({ model: 'claude-sonnet-5-5', rubric: 'R', requirements: [{ id: 'r1', text: 'confirm first', symptoms: [] }], cases: [{ caseId: 'c1', trace: [] }] });
    expect(review.value).toEqual({ violations: [] });
    expect(fake.requests[0]?.headers['x-agentdevel-role']).toBe('reviewer');
    expect(ledger.map((l) => l.role)).toEqual(['reviewer']);
  });

  it('asks the critic only for what it can accept: no "pass" where the scorer decided, and a repair names the rule', async () => {
    const scored = { ...criticRequest, scorer: { pass: false, checks: [{ scorer: 'state', pass: false, code: 'state_mismatch' }] } };
    const { engine, server: fake } = await engineAgainst([toolAnswer('submit_verdict', { pass: true, label: 'ok', description: 'looks fine' }), toolAnswer('submit_verdict', { label: 'tool_error', description: 'get_order failed' })]);
    expect((await engine.criticize(scored)).value).toEqual(verdict);
    const schema = (fake.requests[0]?.body.tools as Array<{ input_schema: { properties: Record<string, { pattern?: string }>; required: string[] } }>)[0]?.input_schema;
    expect(Object.keys(schema?.properties ?? {})).toEqual(['label', 'description']);
    expect(schema?.properties.label?.pattern).toBe('^(?!ok$)[a-z][a-z0-9_]{1,63}$');
    expect(JSON.stringify(fake.requests[1]?.body.messages)).toMatch(/label: a symptom label is snake_case, 2 to 64 characters, and not \\"ok\\" \(the scorer failed this case\)/);
    const system = (fake.requests[0]?.body.system as Array<{ text: string }>).map((b) => b.text).join('\n');
    expect(system).toMatch(/The scorer decides pass or fail/);
    expect(userText(fake.requests[0])).toContain('The scorer decided: this case failed.');
  });

  it('passes every critic contract with an answerer that reads only the tool schema', async () => {
    server = await startFakeAnthropic((request) => {
      const tool = (request.body.tools as Array<{ name: string; input_schema: Record<string, unknown> }>)[0];
      return toolAnswer(tool?.name ?? '', schemaOnlyAnswer(tool?.input_schema ?? {}));
    });
    const send = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries: 0, timeoutMs: 10_000 });
    const engine = createClaudeEngine(send, () => {}, facts);
    const passed = { pass: true, checks: [{ scorer: 'state', pass: true }] };
    const failed = { pass: false, checks: [{ scorer: 'state', pass: false, code: 'state_mismatch' }] };
    const measured = { pass: true, decides: false, checks: [{ scorer: 'cost', pass: true, value: 3, decides: false }] };
    const requirements = [
      { id: 'confirm_first', text: 'confirm before acting', symptoms: [] },
      { id: 'no_pii', text: 'never repeat a card number', symptoms: [] },
    ];
    const contracts = [
      { name: 'no scorer', scorer: null, requirements: [] },
      { name: 'scorer passed (policy "all")', scorer: passed, requirements: [] },
      { name: 'scorer failed', scorer: failed, requirements: [] },
      { name: 'scorer passed, requirements to judge', scorer: passed, requirements },
      { name: 'scorer failed, requirements to judge', scorer: failed, requirements },
      { name: 'a scorer that only measures, requirements to judge', scorer: measured, requirements },
    ];
    for (const contract of contracts) {
      const before = server.requests.length;
      const answer = await engine.criticize({ ...criticRequest, scorer: contract.scorer, ...(contract.requirements.length > 0 ? { requirements: contract.requirements } : {}) });
      expect(server.requests.length - before, `${contract.name}: answered without a repair`).toBe(1);
      expect(answer.value.pass, contract.name).toBe(contract.scorer === failed ? false : true);
      expect(answer.value.label === 'ok', contract.name).toBe(answer.value.pass);
      expect((answer.value.requirements ?? []).map((r) => r.id), contract.name).toEqual(contract.requirements.map((r) => r.id));
    }
  });

  it('passes the reviewer and judge contracts with an answerer that reads only the tool schema (ids are enums, one verdict per call)', async () => {
    server = await startFakeAnthropic((request) => {
      const tool = (request.body.tools as Array<{ name: string; input_schema: Record<string, unknown> }>)[0];
      return toolAnswer(tool?.name ?? '', schemaOnlyAnswer(tool?.input_schema ?? {}, 0, { fill: true }));
    });
    const send = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries: 0, timeoutMs: 10_000 });
    const engine = createClaudeEngine(send, () => {}, facts);
    const review = await engine.reviewRequirements({
      model: 'claude-sonnet-5-5',
      rubric: 'R',
      requirements: [{ id: 'confirm_first', text: 'confirm first', symptoms: [] }, { id: 'no_pii', text: 'no card numbers', symptoms: [] }],
      cases: [{ caseId: 'train-004', trace: [] }, { caseId: 'train-009', trace: [] }],
    });
    expect(server.requests, 'the reviewer answered without a repair').toHaveLength(1);
    expect(review.value.violations).toEqual([{ requirement: 'confirm_first', caseId: 'train-004', reason: 'ok' }]);
    const reviewSchema = (server.requests[0]?.body.tools as Array<{ input_schema: { properties: { violations: { items: { properties: Record<string, { enum?: string[] }> } } } } }>)[0]?.input_schema;
    expect(reviewSchema?.properties.violations.items.properties.requirement?.enum).toEqual(['confirm_first', 'no_pii']);
    expect(reviewSchema?.properties.violations.items.properties.caseId?.enum).toEqual(['train-004', 'train-009']);

    const callIds = ['toolu_1', 'toolu_2', 'toolu_3'];
    const judged = await engine.judgeHelpfulness!({ model: 'claude-sonnet-5-5', component: { kind: 'tool', name: 'get_order', description: 'd' }, trace: [], callIds });
    expect(server.requests, 'the judge answered without a repair').toHaveLength(2);
    expect(judged.value.verdicts.map((v) => v.callId)).toEqual(callIds);
    const verdicts = (server.requests[1]?.body.tools as Array<{ input_schema: { properties: { verdicts: { minItems: number; maxItems: number; items: { properties: { callId: { enum: string[] } } } } } } }>)[0]?.input_schema.properties.verdicts;
    expect([verdicts?.minItems, verdicts?.maxItems, verdicts?.items.properties.callId.enum]).toEqual([3, 3, callIds]);
  });

  it('states in the synthesizer’s schema what it checks after: edit paths inside the blueprint folder, and label-shaped targets when the taxonomy is empty', async () => {
    const { engine, server: fake } = await engineAgainst([
      toolAnswer('submit_release_candidate', { edits: [{ path: 'blueprints/bp/../other/x.hbs', content: 'x', type: 'revise', component: 'agent' }], intent: { targets: ['Fix It!'], rationale: 'r' } }),
      toolAnswer('submit_release_candidate', { edits: [{ path: 'blueprints/bp/system.hbs', content: 'x', type: 'revise', component: 'agent' }], intent: { targets: ['tool_error'], rationale: 'r' } }),
    ]);
    const answer = await engine.synthesize({ ...synthesisRequest, taxonomy: [] });
    expect(answer.value.intent.targets).toEqual(['tool_error']);
    const schema = (fake.requests[0]?.body.tools as Array<{ input_schema: { properties: { edits: { items: { properties: { path: { pattern: string } } } }; intent: { properties: { targets: { items: { pattern?: string; enum?: string[] } } } } } } }>)[0]?.input_schema;
    const pattern = new RegExp(schema?.properties.edits.items.properties.path.pattern ?? '^$');
    expect(['blueprints/bp/system.hbs', 'blueprints/bp/tools/get_order.ts'].every((p) => pattern.test(p))).toBe(true);
    expect(['blueprints/bp/../other/x.hbs', 'blueprints/other/x', '../blueprints/bp/x', 'blueprints/bp/./x', 'blueprints/bpx/y'].some((p) => pattern.test(p))).toBe(false);
    expect(schema?.properties.intent.properties.targets.items).toMatchObject({ pattern: '^[a-z][a-z0-9_]{1,63}$' });
    expect(schema?.properties.intent.properties.targets.items.enum).toBeUndefined();
    // The prompt says the same: with an empty taxonomy any label-shaped name is accepted (not "the schema lists them").
    const system = (fake.requests[0]?.body.system as Array<{ text: string }>).map((b) => b.text).join('\n');
    expect(system).toContain('the taxonomy is empty, so any such name is accepted');
    expect(system).not.toContain("the tool's schema lists them");
    const repair = JSON.stringify(fake.requests[1]?.body.messages);
    expect(repair).toMatch(/edits\.0\.path: a path inside blueprints\/bp\//);
    expect(repair).toMatch(/intent\.targets\.0: a symptom label is snake_case/);
  });

  it('tells every role the date and the runtime, and only the roles that write code its built-ins', async () => {
    const candidate = { edits: [{ path: 'blueprints/bp/system.hbs', content: 'x', type: 'revise' as const, component: 'agent' }], intent: { targets: ['tool_error'], rationale: 'r' } };
    const { engine, server: fake } = await engineAgainst([toolAnswer('submit_verdict', verdict)]);
    await engine.criticize(criticRequest);
    fake.respond = () => toolAnswer('submit_script', { script: 'x' });
    await engine.writeDiagnosisScript({ model: 'claude-sonnet-5-5', recordSchema: 's', sampleRecords: [], limits: { timeoutMs: 30_000, memoryMb: 256 }, taxonomy: [], previousScript: null, previousReport: null, lastRc: null, caseChanges: null, repair: null });
    fake.respond = () => toolAnswer('submit_release_candidate', candidate);
    await engine.synthesize(synthesisRequest);
    expect(fake.requests.map((r) => r.role)).toEqual(['critic', 'diagnostician', 'synthesizer']);
    for (const request of fake.requests) {
      expect(request.raw).toContain("Today's date: 2031-02-03.");
      expect(request.raw).toContain('Node.js v20.99.0');
      // Built-ins matter only to roles that write code: the critic reads a trace.
      if (request.role === 'critic') expect(request.raw).not.toMatch(/groupBy|Newer built-ins/);
      else expect(request.raw).toMatch(/does NOT have \(code that calls them fails\): Object\.groupBy/);
    }
  });

  it('runs an agent turn with the blueprint prompt cached and tool calls returned', async () => {
    const reply: FakeReply = { kind: 'message', message: { content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_order', input: { order_id: 'W1' } }], stop_reason: 'tool_use', usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 900 } } };
    const { engine, ledger, server: fake } = await engineAgainst([reply]);
    const turn = await engine.agentTurn({
      model: 'claude-sonnet-5-5',
      system: 'You are a helpful agent.',
      tools: [{ name: 'get_order', description: 'd', inputSchema: { type: 'object', properties: { order_id: { type: 'string' } } } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'where is W1?' }] }],
      maxTokens: 512,
      seed: '0',
    });
    expect(turn.content).toEqual([{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_order', input: { order_id: 'W1' } }]);
    expect(turn.usage.cacheReadTokens).toBe(900);
    const body = fake.requests[0]?.body as { system: Array<{ cache_control: unknown }>; tools: Array<{ cache_control?: unknown }> };
    expect(body.system[0]?.cache_control).toEqual({ type: 'ephemeral' });
    expect(body.tools.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    expect(fake.requests[0]?.headers['x-agentdevel-role']).toBe('agent');
    expect(ledger[0]?.usage.costUsd).toBeCloseTo((10 * 3 + 5 * 15 + 900 * 0.3) / 1e6, 10);
  });

  it('replays a cassette on another day: the roles are told the recorded date, so the requests still match', async () => {
    server = await startFakeAnthropic(() => toolAnswer('submit_verdict', verdict));
    const dir = tempDir('agentdevel-cassette-');
    const settings = { maxRetries: 0, timeoutMs: 10_000 };
    const engineFor = (cassette: { mode: 'record' | 'replay'; dir: string }, today: string, env: Record<string, string>) =>
      claudeEngines({ env, settings, cassette, ledger: () => undefined, facts: { ...facts, today } })('critic', 'claude-sonnet-5-5');
    await engineFor({ mode: 'record', dir }, '2031-02-03', { ANTHROPIC_API_KEY: 'sk-test-key-0123456789', ANTHROPIC_BASE_URL: server.url }).criticize(criticRequest);
    expect(server.requests[0]?.raw).toContain("Today's date: 2031-02-03.");

    const nextDay = await engineFor({ mode: 'replay', dir }, '2031-02-04', {}).criticize(criticRequest);
    expect(nextDay.value).toEqual(verdict);
    expect(server.requests).toHaveLength(1);
    // Told today's date instead, the same request would not be in the cassette.
    rmSync(path.join(dir, 'facts.json'));
    await expect(engineFor({ mode: 'replay', dir }, '2031-02-04', {}).criticize(criticRequest)).rejects.toMatchObject({ code: 'REPLAY_MISS' });
  });
});
