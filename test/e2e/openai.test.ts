// Every role on an OpenAI-compatible server (the fake Chat Completions server on 127.0.0.1),
// through the real openai package and HTTP: the same iteration as with Claude, mixed
// providers charged apart, record and replay, invalid answers, a refused key, no server.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { startFakeAnthropic, toolAnswer, type FakeAnthropic, type Responder } from '../helpers/fake-anthropic.ts';
import { between, mockBrain, userText } from '../helpers/fake-brain.ts';
import { blueprintBrief } from '../../src/adapters/blueprint/brief.ts';
import { simulatedSynthesis } from '../../src/adapters/engines/mock/synthesizer.ts';
import type { DiagnosisReport } from '../../src/domain/diagnosis.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.ts';
import { schemaOnlyAnswer } from '../helpers/schema-only-answer.ts';
import { cliAsync, decisionLogAsync, exampleWorkspace, git, tempDir } from '../helpers/workspace.ts';

const GPT = 'openai:gpt-5.1';
const LOCAL = { provider: 'openai', model: 'llama3.1:8b' };
const KEY = 'sk-openai-test-0123456789abcdef';
const CLAUDE_KEY = 'sk-ant-test-0123456789abcdef';

/** The example with the given models and a 16-case train split (to keep the suite fast). */
async function workspaceWith(models: Record<string, unknown>, settings: Record<string, unknown> = {}, edit?: (dir: string) => void): Promise<string> {
  const dir = await exampleWorkspace();
  const configFile = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  config.models = models;
  config.critic = 'all';
  Object.assign(config, settings);
  const gate = config.gate as { layers: Array<{ layer: string }> };
  gate.layers = gate.layers.map((layer) => (layer.layer === 'checks' ? { layer: 'checks' } : layer));
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  const train = path.join(dir, 'rubrics/orders/train.jsonl');
  writeFileSync(train, `${readFileSync(train, 'utf8').trim().split('\n').slice(0, 16).join('\n')}\n`);
  edit?.(dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'roles on openai; 16 train cases');
  return dir;
}

/** Every fifth request is refused, alternately 429 with retry-after and 500, once per request. */
function withChatFaults(inner: Responder, counts: { faults: number }): Responder {
  let count = 0;
  return (request) => {
    count += 1;
    if (count % 5 === 0 && Number(request.headers['x-stainless-retry-count'] ?? 0) === 0) {
      counts.faults += 1;
      return count % 10 === 0 ? { kind: 'error', status: 500 } : { kind: 'error', status: 429, headers: { 'retry-after': '0.02' } };
    }
    return inner(request);
  };
}

/** The fake brain, with the synthesizer writing the example's fix (the order-id normalisation), as claude.test.ts's strong model does. */
const fixingBrain: Responder = (request) => {
  if (request.role !== 'synthesizer') return mockBrain(request);
  const text = userText(request.body);
  const diagnosis = JSON.parse(between(text, '<diagnosis>', '</diagnosis>')) as DiagnosisReport;
  const files = [...text.matchAll(/<file path="([^"]+)">\n([\s\S]*?)\n<\/file>/g)].map((m) => ({ path: m[1] as string, content: m[2] as string }));
  const onlyToolErrors = { ...diagnosis, dominantSymptoms: diagnosis.dominantSymptoms.filter((d) => d.label === 'tool_error') };
  const fix = simulatedSynthesis({ model: 'x', blueprintName: 'support-agent', blueprintRoot: 'blueprints/support-agent', blueprint: blueprintBrief('tool-loop'), evidence: { budgetTokens: 0, usedTokens: 0, symptoms: [] }, files, diagnosis: onlyToolErrors, history: [], taxonomy: [], task: { rubric: '', environmentApi: null }, repair: null });
  return toolAnswer('submit_release_candidate', fix);
};

function ledger(dir: string): Array<{ role: string; model: string; calls: number; cost: number }> {
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  try {
    return sql.all(`SELECT role, model, COUNT(*) AS calls, SUM(cost_usd) AS cost FROM model_calls GROUP BY role, model ORDER BY role, model`);
  } finally {
    sql.close();
  }
}

let openai: FakeOpenAI;
beforeAll(async () => {
  openai = await startFakeOpenAI(mockBrain, KEY);
});
afterAll(async () => {
  await openai.close();
});
const env = () => ({ OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined });

describe('iterate with every role on an OpenAI-compatible server', () => {
  it('promotes the example fix through 429s and 500s, streams the long answers, names the provider in the trace and charges each role', async () => {
    const dir = await workspaceWith({ agent: GPT, critic: GPT, diagnostician: GPT, synthesizer: GPT });
    const counts = { faults: 0 };
    openai.respond = withChatFaults(fixingBrain, counts);
    const before = openai.requests.length;
    const result = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir], { env: env() });
    openai.respond = mockBrain;
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    expect(counts.faults).toBeGreaterThan(0);
    const entries = await decisionLogAsync(dir);
    expect(entries.map((e) => e.decision)).toEqual(['promoted']);
    expect(entries[0]?.costUsd).toBeGreaterThan(0);
    const sent = openai.requests.slice(before);
    expect(new Set(sent.map((r) => r.role))).toEqual(new Set(['agent', 'critic', 'diagnostician', 'reviewer', 'synthesizer']));
    for (const request of sent) {
      expect(request.chat.model).toBe('gpt-5.1');
      expect(request.raw).not.toContain(KEY);
    }
    // The long answers stream, the short ones do not; every structured call forces its function.
    const streamed = new Set(sent.filter((r) => r.chat.stream === true).map((r) => r.role));
    expect(streamed).toEqual(new Set(['diagnostician', 'synthesizer']));
    const critic = sent.find((r) => r.role === 'critic');
    expect(critic?.chat.tool_choice).toEqual({ type: 'function', function: { name: 'submit_verdict' } });
    // The trace names who answered.
    const traces = path.join(dir, 'traces');
    const files = readdirSync(traces, { recursive: true }).map(String).filter((f) => f.endsWith('.jsonl'));
    const llm = readFileSync(path.join(traces, files[0] as string), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.type === 'llm');
    expect(llm.length).toBeGreaterThan(0);
    for (const event of llm) expect(event).toMatchObject({ model: GPT, provider: 'openai' });
    const rows = ledger(dir);
    expect(rows.map((r) => `${r.role} ${r.model}`)).toEqual(['agent openai:gpt-5.1', 'critic openai:gpt-5.1', 'diagnostician openai:gpt-5.1', 'reviewer openai:gpt-5.1', 'synthesizer openai:gpt-5.1']);
    for (const row of rows) expect(row.cost, row.role).toBeGreaterThan(0);
  }, 180_000);

  it('charges every call to its role and its provider when the agent is on openai and the critic on Claude', async () => {
    const claude: FakeAnthropic = await startFakeAnthropic(mockBrain);
    try {
      const dir = await workspaceWith({ agent: GPT, critic: 'claude-sonnet-5-5', diagnostician: 'mock', synthesizer: 'mock' });
      const before = openai.requests.length;
      const result = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir], { env: { ...env(), ANTHROPIC_BASE_URL: claude.url, ANTHROPIC_API_KEY: CLAUDE_KEY } });
      expect(result.stderr).not.toMatch(/internal error/);
      expect(result.code).toBe(0);
      expect(new Set(openai.requests.slice(before).map((r) => r.role))).toEqual(new Set(['agent']));
      expect(new Set(claude.requests.map((r) => r.role))).toEqual(new Set(['critic']));
      const rows = ledger(dir);
      expect(rows.map((r) => `${r.role} ${r.model}`)).toEqual(['agent openai:gpt-5.1', 'critic claude-sonnet-5-5']);
      const calls = Object.fromEntries(rows.map((r) => [r.role, r.calls]));
      expect(calls.agent).toBe(openai.requests.length - before);
      expect(calls.critic).toBe(claude.requests.length);
    } finally {
      await claude.close();
    }
  }, 180_000);

  it('re-runs the iteration from its cassette in a fresh clone with no request, reaching the same decision', async () => {
    const original = await workspaceWith({ agent: GPT, critic: GPT, diagnostician: GPT, synthesizer: GPT });
    const copy = path.join(tempDir(), 'copy');
    git(path.dirname(copy), 'clone', '-q', original, copy);
    const cassette = path.join(tempDir(), 'cassette');
    const recorded = await cliAsync(['iterate', '--max-iterations', '1', '--record', cassette, '-C', original], { env: env() });
    expect(recorded.code).toBe(0);
    expect(readdirSync(path.join(cassette, 'openai')).length).toBeGreaterThan(1);
    const before = openai.requests.length;
    const replayed = await cliAsync(['iterate', '--max-iterations', '1', '--replay', cassette, '-C', copy], { env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: undefined } });
    expect(replayed.stderr).not.toMatch(/internal error/);
    expect(replayed.code).toBe(0);
    expect(openai.requests.length).toBe(before);
    const strip = (entries: Array<Record<string, unknown>>) => entries.map((e) => [e.decision, e.f2pCases, e.p2fCases, e.tag, e.costUsd]);
    expect(strip(await decisionLogAsync(copy))).toEqual(strip(await decisionLogAsync(original)));
  }, 180_000);
});

describe('the critic is implementation-blind on openai too', () => {
  it('sends no byte of the blueprint to the critic (canary in the prompt template and the tool wrappers), while the agent gets it', async () => {
    const canary = 'CANARY-9e107d9d37-not-for-the-critic';
    const dir = await workspaceWith({ agent: GPT, critic: GPT, diagnostician: 'mock', synthesizer: 'mock' }, {}, (d) => {
      const prompt = path.join(d, 'blueprints/support-agent/system.hbs');
      writeFileSync(prompt, `${readFileSync(prompt, 'utf8')}\nHouse rule ${canary}.\n`);
      for (const tool of ['get_order', 'find_customer']) {
        const file = path.join(d, `blueprints/support-agent/tools/${tool}.ts`);
        writeFileSync(file, `${readFileSync(file, 'utf8').replace("description: '", `description: '${canary} `)}// ${canary}\n`);
      }
    });
    const before = openai.requests.length;
    const result = await cliAsync(['run', '-C', dir], { env: env() });
    expect(result.code).toBe(0);
    const sent = openai.requests.slice(before);
    const critic = sent.filter((r) => r.role === 'critic');
    expect(critic.length).toBe(16);
    for (const request of critic) expect(request.raw).not.toContain(canary);
    const agent = sent.filter((r) => r.role === 'agent');
    expect(agent.length).toBeGreaterThan(0);
    expect(agent.every((r) => r.raw.includes(`House rule ${canary}`))).toBe(true);
  }, 120_000);
});

describe('init --provider openai', () => {
  it('scaffolds the tool-loop example with every role on openai, and it runs against the server', async () => {
    const dir = tempDir();
    const init = await cliAsync(['init', '--runtime', 'tool-loop', '--provider', 'openai', '-C', dir]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('OPENAI_API_KEY');
    const config = JSON.parse(readFileSync(path.join(dir, 'agentdevel.config.json'), 'utf8')) as { models: Record<string, string> };
    expect(config.models).toEqual({ agent: GPT, critic: GPT, diagnostician: GPT, synthesizer: GPT });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'agentdevel workspace');
    const before = openai.requests.length;
    const run = await cliAsync(['run', '-C', dir], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(new Set(openai.requests.slice(before).map((r) => r.role))).toEqual(new Set(['agent', 'critic']));
    const refused = await cliAsync(['init', '--provider', 'gemini', '-C', tempDir()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--provider: expected anthropic or openai, got "gemini"/);
  }, 120_000);
});

describe('prompts for a role on openai', () => {
  it("shows the Chat Completions request the critic is sent, whose tool schema a schema-only answerer satisfies", async () => {
    const dir = await workspaceWith({ agent: 'mock', critic: GPT, diagnostician: 'mock', synthesizer: 'mock' });
    const shown = await cliAsync(['prompts', '--role', 'critic', '--json', '-C', dir], { env: env() });
    expect(shown.code, shown.stderr).toBe(0);
    const printed = JSON.parse(shown.stdout) as { provider: string; body: { model: string; tool_choice: unknown; messages: Array<{ role: string }>; tools: Array<{ function: { name: string; parameters: Record<string, unknown> } }> } };
    expect(printed.provider).toBe('openai');
    expect(printed.body.model).toBe('gpt-5.1');
    expect(printed.body.tool_choice).toEqual({ type: 'function', function: { name: 'submit_verdict' } });
    expect(printed.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(JSON.stringify(printed.body)).not.toContain('cache_control');
    // An answerer that reads only the schema it is sent passes every critic call without a repair.
    openai.respond = (request) => {
      const tool = (request.body.tools as Array<{ name: string; input_schema: Record<string, unknown> }>)[0];
      return toolAnswer(tool?.name ?? '', schemaOnlyAnswer(tool?.input_schema ?? {}));
    };
    const before = openai.requests.length;
    try {
      const run = await cliAsync(['run', '-C', dir], { env: env() });
      expect(run.code, run.stderr).toBe(0);
    } finally {
      openai.respond = mockBrain;
    }
    const sent = openai.requests.slice(before);
    expect(sent.length).toBe(16);
    for (const request of sent) expect((request.chat.messages as Array<{ role: string }>).some((m) => m.role === 'tool'), 'a repair turn').toBe(false);
    // What prompts shows is rendered as the engine renders it: the same forced function.
    expect(sent[0]?.chat.tool_choice).toEqual(printed.body.tool_choice);
  }, 120_000);
});

describe('failures on an OpenAI-compatible server', () => {
  it('ends with MODEL_OUTPUT_INVALID when the critic always breaks the schema (after the repair turn), and when its arguments are not JSON', async () => {
    const dir = await workspaceWith({ agent: 'mock', critic: { ...LOCAL, baseURL: openai.url }, diagnostician: 'mock', synthesizer: 'mock' });
    openai.respond = (request) => (request.role === 'critic' ? toolAnswer('submit_verdict', { pass: true, label: 'Looks Fine!', description: 'fine' }) : { kind: 'error', status: 400 });
    const before = openai.requests.length;
    try {
      const result = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir], { env: { OPENAI_API_KEY: KEY } });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^error MODEL_OUTPUT_INVALID: /m);
      expect(result.stderr).toMatch(/The critic's answer broke this rule: label: .*snake_case/);
      expect(result.stderr).not.toMatch(/MODEL_UNAVAILABLE|could not be reached/);
      // A local model with no price set is said to have none, not counted as free without a word.
      expect(result.stderr).toContain('openai:llama3.1:8b has no known price');
      // The repair turn answers the function call with the schema's words.
      const repair = openai.requests.slice(before).find((r) => (r.chat.messages as Array<{ role: string }>).some((m) => m.role === 'tool'));
      expect(repair?.raw).toContain('does not match the schema');
      expect(repair?.chat.model).toBe('llama3.1:8b');
      expect(git(dir, 'for-each-ref', 'refs/agentdevel')).toBe('');

      openai.respond = mockBrain;
      openai.garble = new Set(['critic']);
      const garbled = await cliAsync(['run', '-C', dir], { env: { OPENAI_API_KEY: KEY } });
      expect(garbled.stderr).toMatch(/^error MODEL_OUTPUT_INVALID: /m);
      expect(garbled.stderr).toMatch(/are not JSON/);
      expect(garbled.code).toBe(3);
    } finally {
      openai.respond = mockBrain;
      openai.garble = new Set();
    }
  }, 180_000);

  it('refuses a rejected key as bad input (exit 2, naming the variable), and an unreachable server as infrastructure (exit 3)', async () => {
    // One retry: an unreachable server is given up on sooner (the retries are claude.test.ts's to show).
    const dir = await workspaceWith({ agent: 'mock', critic: { ...LOCAL, apiKeyEnv: 'LOCAL_LLM_KEY' }, diagnostician: 'mock', synthesizer: 'mock' }, { anthropic: { maxRetries: 1 } });
    const refused = await cliAsync(['run', '-C', dir], { env: { LOCAL_LLM_KEY: 'sk-wrong', OPENAI_BASE_URL: openai.url } });
    expect(refused.stderr).toMatch(/^error API_KEY_REJECTED: .*LOCAL_LLM_KEY/m);
    expect(refused.stderr).not.toContain('sk-wrong');
    expect(refused.code).toBe(2);
    const missing = await cliAsync(['run', '-C', dir], { env: { OPENAI_BASE_URL: openai.url } });
    expect(missing.stderr).toMatch(/^error API_KEY_MISSING: .*LOCAL_LLM_KEY/m);
    expect(missing.code).toBe(2);
    const down = await cliAsync(['run', '-C', dir], { env: { LOCAL_LLM_KEY: KEY, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(down.stderr).not.toMatch(/internal error/);
    expect(down.code).toBe(3);
  }, 180_000);
});
