// The openai engine's overhead per call, against the Claude engine's: the same critic call, N
// times one after another, each engine through its real SDK and HTTP to its fake server on
// 127.0.0.1, both fakes answering a canned verdict (no brain), so what differs is the engine,
// the SDK and the rendering. Prints the mean and median milliseconds per call and the ratio.
// Run: npx tsx bench/engine-overhead.ts [--calls 300]
import { parseArgs } from 'node:util';
import { createClaudeEngine } from '../src/adapters/engines/anthropic/adapter.ts';
import { createMessagesClient } from '../src/adapters/engines/anthropic/messages-client.ts';
import { createChatClient } from '../src/adapters/engines/openai/chat-client.ts';
import { createOpenAIEngine } from '../src/adapters/engines/openai/engine.ts';
import type { CriticRequest, ModelPort } from '../src/domain/ports/model.ts';
import { startFakeAnthropic, toolAnswer } from '../test/helpers/fake-anthropic.ts';
import { startFakeOpenAI } from '../test/helpers/fake-openai.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '300' } } });
const calls = Number(values.calls);
const facts = { today: '2031-02-03', node: process.version, builtins: { available: [], missing: [] } };
const verdict = () => toolAnswer('submit_verdict', { pass: false, label: 'tool_error', description: 'get_order failed' });
const request = (model: string): CriticRequest => ({
  model,
  rubric: 'Answer the customer; change an order only after a clear yes.',
  trace: [{ type: 'start', caseId: 'train-001' }, { type: 'message', role: 'user', text: 'Where is order 42?' }, { type: 'final', output: 'It ships today.' }],
  scorer: null,
  taxonomy: [{ label: 'tool_error', description: 'a tool failed', count: 1 }],
} as unknown as CriticRequest);

async function measure(engine: ModelPort, model: string): Promise<number[]> {
  for (let i = 0; i < 20; i += 1) await engine.criticize(request(model)); // warm-up: SDK loaded, connections open
  const times: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const started = performance.now();
    await engine.criticize(request(model));
    times.push(performance.now() - started);
  }
  return times;
}

const stats = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { mean: times.reduce((a, b) => a + b, 0) / times.length, median: sorted[Math.floor(sorted.length / 2)] as number };
};

const anthropic = await startFakeAnthropic(verdict);
const openai = await startFakeOpenAI(verdict, 'sk-bench');
try {
  const claude = createClaudeEngine(createMessagesClient({ apiKey: 'sk-bench', baseURL: anthropic.url, maxRetries: 0, timeoutMs: 10_000 }), () => {}, facts);
  const chat = createOpenAIEngine(createChatClient({ apiKey: 'sk-bench', apiKeyEnv: 'OPENAI_API_KEY', baseURL: openai.url, maxRetries: 0, timeoutMs: 10_000 }), () => {}, facts, null);
  // Alternated rounds, so a slower moment of the machine does not fall on one engine only.
  const claudeTimes: number[] = [];
  const openaiTimes: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    claudeTimes.push(...(await measure(claude, 'claude-sonnet-5-5')));
    openaiTimes.push(...(await measure(chat, 'openai:gpt-5.1')));
  }
  const c = stats(claudeTimes);
  const o = stats(openaiTimes);
  console.log(`calls per engine: ${claudeTimes.length}`);
  console.log(`claude engine: mean ${c.mean.toFixed(3)} ms, median ${c.median.toFixed(3)} ms per call`);
  console.log(`openai engine: mean ${o.mean.toFixed(3)} ms, median ${o.median.toFixed(3)} ms per call`);
  console.log(`openai / claude: mean ${(o.mean / c.mean).toFixed(3)}, median ${(o.median / c.median).toFixed(3)} (target: at most 1.10)`);
} finally {
  await anthropic.close();
  await openai.close();
}
