// A run's case-trials as OpenTelemetry spans, following the GenAI semantic conventions: one
// `invoke_agent` span per case-trial (tokens in gen_ai.usage.*), an `execute_tool` span per tool
// call under it, and one `gen_ai.evaluation.result` event per scorer check and critic verdict.
// agentdevel's own facts (run, case, trial, verdict, release, flip class) are under
// `agentdevel.*`. The only module that imports the OpenTelemetry packages.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { context, SpanKind, SpanStatusCode, trace as otelTrace, type Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_AGENT_VERSION,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_GEN_AI_EVALUATION_NAME,
  ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  ATTR_GEN_AI_EVALUATION_SCORE_VALUE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  EVENT_GEN_AI_EVALUATION_RESULT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';
import type { CaseRecord } from '../../domain/record.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { systemClock } from '../../domain/ports/clock.ts';

export interface ExportedRun {
  readonly runId: string;
  readonly blueprint: string;
  readonly commit: string;
  readonly purpose: string;
  readonly startedAt: string;
  readonly simulated: boolean;
  readonly agentModel: string;
  /** The release tag at the run's commit, when there is one. */
  readonly release: string | null;
  /** The flip class of each case named by a gate that read this run (regression, fix, noise). */
  readonly flips: ReadonlyMap<string, string>;
  readonly trials: ReadonlyArray<{ readonly record: CaseRecord; readonly trace: readonly TraceEvent[] | null }>;
}

const ERROR_TYPE = 'error.type';

/** Builds the spans of a run (in memory): nothing leaves the process here. */
export async function runSpans(run: ExportedRun): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agentdevel', 'agentdevel.blueprint': run.blueprint }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer('agentdevel');
  const start = Date.parse(run.startedAt) || systemClock.now().getTime();
  for (const { record, trace } of run.trials) {
    const events = trace ?? [];
    const llm = events.filter((e): e is Extract<TraceEvent, { type: 'llm' }> => e.type === 'llm');
    const duration = Math.max(1, llm.reduce((sum, e) => sum + (e.latencyMs ?? 0), 0));
    const model = llm[0]?.model ?? run.agentModel;
    const verdict = record.status === 'infra_error' ? 'infra_error' : record.pass ? 'pass' : 'fail';
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [ATTR_GEN_AI_AGENT_NAME]: run.blueprint,
      [ATTR_GEN_AI_AGENT_VERSION]: run.release ?? run.commit.slice(0, 10),
      [ATTR_GEN_AI_PROVIDER_NAME]: model === 'mock' ? 'agentdevel.mock' : model.startsWith('claude') ? 'anthropic' : 'agentdevel.command',
      [ATTR_GEN_AI_REQUEST_MODEL]: model,
      [ATTR_GEN_AI_CONVERSATION_ID]: `${run.runId}/${record.caseId}/${record.trial}`,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: llm.reduce((sum, e) => sum + (e.inputTokens ?? 0), 0),
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: llm.reduce((sum, e) => sum + (e.outputTokens ?? 0), 0),
      'agentdevel.run.id': run.runId,
      'agentdevel.run.purpose': run.purpose,
      'agentdevel.commit': run.commit,
      'agentdevel.case.id': record.caseId,
      'agentdevel.trial': record.trial,
      'agentdevel.verdict': verdict,
      'agentdevel.simulated': run.simulated,
      ...(run.release ? { 'agentdevel.release': run.release } : {}),
      ...(run.flips.has(record.caseId) ? { 'agentdevel.flip.class': run.flips.get(record.caseId) as string } : {}),
    };
    const agent = tracer.startSpan(`invoke_agent ${run.blueprint}`, { kind: SpanKind.INTERNAL, startTime: start, attributes });
    const parent = otelTrace.setSpan(context.active(), agent);
    // Tool calls, in order, each closed by its result.
    const results = new Map(events.filter((e) => e.type === 'tool_result').map((e) => [e.id, e]));
    const calls = events.filter((e): e is Extract<TraceEvent, { type: 'tool_call' }> => e.type === 'tool_call');
    calls.forEach((call, i) => {
      const at = start + Math.floor((duration * i) / Math.max(1, calls.length));
      const tool = tracer.startSpan(
        `execute_tool ${call.name}`,
        { kind: SpanKind.INTERNAL, startTime: at, attributes: { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL, [ATTR_GEN_AI_TOOL_NAME]: call.name, [ATTR_GEN_AI_TOOL_CALL_ID]: call.id, [ATTR_GEN_AI_TOOL_TYPE]: 'function' } },
        parent,
      );
      const result = results.get(call.id);
      if (result && !result.ok) {
        tool.setAttribute(ERROR_TYPE, 'tool_error');
        tool.setStatus({ code: SpanStatusCode.ERROR, message: (result.error ?? 'failed').slice(0, 500) });
      }
      tool.end(at + Math.max(1, Math.floor(duration / Math.max(1, calls.length))));
    });
    // One evaluation event per scorer check and per critic verdict.
    for (const check of record.scorer?.checks ?? []) {
      agent.addEvent(EVENT_GEN_AI_EVALUATION_RESULT, {
        [ATTR_GEN_AI_EVALUATION_NAME]: `scorer.${check.scorer}`,
        [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: check.pass ? 'pass' : 'fail',
        [ATTR_GEN_AI_EVALUATION_SCORE_VALUE]: check.value ?? (check.pass ? 1 : 0),
        ...(check.message || check.code ? { [ATTR_GEN_AI_EVALUATION_EXPLANATION]: (check.message ?? check.code ?? '').slice(0, 500) } : {}),
      }, start + duration);
    }
    if (record.critic) {
      agent.addEvent(EVENT_GEN_AI_EVALUATION_RESULT, {
        [ATTR_GEN_AI_EVALUATION_NAME]: 'critic',
        [ATTR_GEN_AI_EVALUATION_SCORE_LABEL]: record.critic.label,
        [ATTR_GEN_AI_EVALUATION_SCORE_VALUE]: record.critic.pass ? 1 : 0,
        [ATTR_GEN_AI_EVALUATION_EXPLANATION]: record.critic.description.slice(0, 500),
      }, start + duration);
    }
    if (verdict !== 'pass') {
      agent.setAttribute(ERROR_TYPE, verdict);
      agent.setStatus({ code: SpanStatusCode.ERROR, message: (record.error ?? record.agentError ?? verdict).slice(0, 500) });
    }
    agent.end(start + duration);
  }
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  return [...spans];
}

/** The spans as an OTLP/JSON ExportTraceServiceRequest (what --otlp-file writes). */
export function otlpJson(spans: ReadableSpan[]): string {
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans));
}

/** The receiver did not take the spans and answer in full within the bound. */
export class OtlpDeadline extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no complete answer within ${Number((timeoutMs / 1000).toFixed(1))} s`);
    this.name = 'OtlpDeadline';
  }
}

/**
 * Sends the spans to an OTLP/HTTP receiver (URL of its /v1/traces); rejects with the exporter's
 * error, or with OtlpDeadline when the whole export (retries and the answer's body included)
 * outlives `timeoutMs`. The exporter's own `timeoutMillis` is a socket idle timeout, which a
 * receiver trickling its body resets forever; so the export runs under our own deadline, on our
 * own agent (no keep-alive), whose sockets are destroyed at the end: nothing keeps the process alive.
 */
export async function sendOtlp(url: string, spans: ReadableSpan[], timeoutMs: number): Promise<void> {
  const agent = url.startsWith('https:') ? new HttpsAgent({ keepAlive: false }) : new HttpAgent({ keepAlive: false });
  const exporter = new OTLPTraceExporter({ url, timeoutMillis: timeoutMs, httpAgentOptions: () => agent });
  let deadline: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      new Promise<void>((resolve, reject) => {
        exporter.export(spans, (result) => (result.code === 0 ? resolve() : reject(result.error ?? new Error('the receiver refused the spans'))));
      }),
      new Promise<never>((_resolve, reject) => {
        deadline = setTimeout(() => reject(new OtlpDeadline(timeoutMs)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(deadline);
    // Ends a request still reading a trickle, so the exporter's pending export settles and its shutdown returns.
    agent.destroy();
    await exporter.shutdown();
  }
}
