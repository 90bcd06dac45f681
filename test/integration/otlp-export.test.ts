// `agentdevel export --otlp URL` against a local OTLP/HTTP receiver: one invoke_agent span per
// case-trial, its tool calls as execute_tool spans under it, one gen_ai.evaluation.result event
// per scorer check and critic verdict, and attribute names from the GenAI semantic conventions
// (checked against the official package's constants) or agentdevel's own namespace. A receiver
// that answers 200 and then trickles its body forever is given up at --timeout: the CLI process
// ends by itself, exit 3, naming the receiver and the bound.
import { createServer, type Server } from 'node:http';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWithin, exampleWorkspace, runMain } from '../helpers/workspace.ts';

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  attributes: OtlpAttribute[];
  events?: Array<{ name: string; attributes: OtlpAttribute[] }>;
}

const bodies: string[] = [];
let server: Server;
let url: string;
let trickler: Server;
let trickleUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d)).on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces' && String(req.headers['content-type']).startsWith('application/json')) bodies.push(text);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/traces`;
  // Takes the spans, answers 200, then sends its body one byte every 100 ms, never ending it.
  trickler = createServer((req, res) => {
    req.resume().on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const drip = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(drip));
    });
  });
  await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve));
  trickleUrl = `http://127.0.0.1:${(trickler.address() as { port: number }).port}/v1/traces`;
});

afterAll(async () => {
  trickler.closeAllConnections();
  await new Promise((resolve) => trickler.close(resolve));
  await new Promise((resolve) => server.close(resolve));
});

const agentdevel = (dir: string, args: string[]) => runMain([...args, '-C', dir], { cwd: dir });

const value = (a: OtlpAttribute | undefined): unknown => (a ? Object.values(a.value)[0] : undefined);

describe('agentdevel export --otlp', () => {
  it('sends one invoke_agent span per case-trial with its tool spans and evaluation events, named by the GenAI conventions', async () => {
    const dir = await exampleWorkspace();
    const run = await agentdevel(dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const exported = await agentdevel(dir, ['export', '--otlp', url, '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    const result = JSON.parse(exported.stdout) as { caseTrials: number; spans: number };
    const spans = bodies
      .flatMap((b) => (JSON.parse(b) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }).resourceSpans)
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(spans).toHaveLength(result.spans);
    const agents = spans.filter((s) => s.name.startsWith('invoke_agent '));
    expect(agents.length).toBe(result.caseTrials);
    expect(agents.length).toBeGreaterThan(10);
    const tools = spans.filter((s) => s.name.startsWith('execute_tool '));
    expect(tools.length).toBeGreaterThan(0);
    const agentIds = new Set(agents.map((s) => s.spanId));
    for (const tool of tools) expect(agentIds.has(tool.parentSpanId ?? '')).toBe(true);

    // Every attribute is a GenAI convention's (the official constants), error.type, service's, or agentdevel's own.
    const conventions = new Set(Object.entries(semconv).filter(([k]) => k.startsWith('ATTR_GEN_AI_')).map(([, v]) => v as string));
    const names = new Set(spans.flatMap((s) => [...s.attributes, ...(s.events ?? []).flatMap((e) => e.attributes)].map((a) => a.key)));
    for (const name of names) expect(conventions.has(name) || name === 'error.type' || name.startsWith('agentdevel.'), name).toBe(true);
    const attr = (span: OtlpSpan, key: string) => value(span.attributes.find((a) => a.key === key));
    for (const span of agents) {
      expect(attr(span, semconv.ATTR_GEN_AI_OPERATION_NAME)).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT);
      expect(attr(span, semconv.ATTR_GEN_AI_AGENT_NAME)).toBe('support-agent');
      expect(Number(attr(span, semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS))).toBeGreaterThanOrEqual(0);
      expect(attr(span, 'agentdevel.case.id')).toMatch(/^train-\d+$/);
      const evaluations = (span.events ?? []).filter((e) => e.name === semconv.EVENT_GEN_AI_EVALUATION_RESULT);
      expect(evaluations.length).toBeGreaterThan(0);
      for (const e of evaluations) expect(e.attributes.map((a) => a.key)).toEqual(expect.arrayContaining([semconv.ATTR_GEN_AI_EVALUATION_NAME, semconv.ATTR_GEN_AI_EVALUATION_SCORE_LABEL]));
    }
    for (const span of tools) {
      expect(attr(span, semconv.ATTR_GEN_AI_OPERATION_NAME)).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
      expect(span.name).toBe(`execute_tool ${String(attr(span, semconv.ATTR_GEN_AI_TOOL_NAME))}`);
    }
  }, 240_000);

  it('gives up on a receiver that answers 200 and trickles its body, at the bound it states, and the process ends', async () => {
    const dir = await exampleWorkspace();
    const run = await agentdevel(dir, ['run', '--json']);
    expect(run.code, run.stderr).toBe(0);
    // Stopped at 30 s if it has not ended by itself (so the suite never hangs), which fails the test.
    const exported = await cliWithin(['export', '--otlp', trickleUrl, '--timeout', '2', '-C', dir], 30_000);
    expect(exported.overran).toBe(false);
    expect(exported.code, exported.stderr).toBe(3);
    expect(exported.stderr).toContain(`error INFRA: --otlp: the receiver at ${trickleUrl} did not take the spans and answer in full within 2 s (the bound of --timeout)`);
    expect(exported.stderr).not.toMatch(/\n\s+at /);
    // The bound, plus the CLI's start (the subprocess loads the bundle and opens the workspace) on a busy machine.
    expect(exported.ms).toBeLessThan(20_000);
  }, 120_000);
});
