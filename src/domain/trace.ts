import { z } from './zod.ts';

// Trace events, the DESIGN.md contract. There is deliberately no `system` role and no field
// for prompt text or code: a trace never carries the blueprint.
//
// Every event may carry `agent`: the crew member that produced it ("orchestrator" for a crew's
// orchestrator). Single-agent runtimes leave it out. Scorers, the critic, diagnosis and credit
// read it to work per member; it is a name only, never the member's prompt.
const agent = { agent: z.string().min(1).optional() };

/** The `agent` of a crew orchestrator's events; no member may take the name. */
export const ORCHESTRATOR = 'orchestrator';

const startEvent = z.object({
  type: z.literal('start'),
  ...agent,
  caseId: z.string(),
  trial: z.number().int().nonnegative(),
  at: z.string().optional(),
});
const messageEvent = z.object({
  type: z.literal('message'),
  ...agent,
  role: z.enum(['user', 'assistant']),
  text: z.string(),
});
const toolCallEvent = z.object({
  type: z.literal('tool_call'),
  ...agent,
  id: z.string(),
  name: z.string(),
  args: z.unknown(),
});
const toolResultEvent = z.object({
  type: z.literal('tool_result'),
  ...agent,
  id: z.string(),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  /** Whether the environment's state changed with this call (where the task exposes its state). */
  stateChanged: z.boolean().optional(),
});
const llmEvent = z.object({
  type: z.literal('llm'),
  ...agent,
  model: z.string(),
  /** Who answered: "anthropic" or "openai" (absent in traces written before there were two). */
  provider: z.enum(['anthropic', 'openai']).optional(),
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  latencyMs: z.number().nonnegative().optional(),
  stopReason: z.string().optional(),
});
const errorEvent = z.object({
  type: z.literal('error'),
  ...agent,
  kind: z.enum(['agent', 'infra']),
  message: z.string(),
});
const finalEvent = z.object({
  type: z.literal('final'),
  ...agent,
  output: z.unknown(),
});

export const traceEventSchema = z.discriminatedUnion('type', [
  startEvent,
  messageEvent,
  toolCallEvent,
  toolResultEvent,
  llmEvent,
  errorEvent,
  finalEvent,
]);

export type TraceEvent = z.infer<typeof traceEventSchema>;

const eventTypes = traceEventSchema.options.map((option) => option.shape.type.value);

/**
 * What is wrong with a line an agent wrote as a trace event, in one phrase; null when it is a
 * valid event. Names the key and what was expected, so the author can fix the agent.
 */
export function traceEventProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'expected a JSON object such as {"type": "final", "output": …}';
  const type = (value as Record<string, unknown>).type;
  if (typeof type !== 'string' || !eventTypes.includes(type as TraceEvent['type'])) {
    return `"type" is ${type === undefined ? 'missing' : JSON.stringify(type)}; expected one of ${eventTypes.join(', ')}`;
  }
  const parsed = traceEventSchema.safeParse(value);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  const key = issue?.path.length ? `"${issue.path.join('.')}"` : 'the event';
  return `a "${type}" event: ${key}: ${issue?.message ?? 'invalid'}`;
}

/**
 * What the critic sees of a trace: what happened, without model metadata (latency, tokens) and
 * without the trial number or timestamp of its start, so identical behaviour reads identically
 * (and is judged once).
 */
export function criticView(trace: readonly TraceEvent[]): TraceEvent[] {
  return trace.filter((event) => event.type !== 'llm').map((event) => (event.type === 'start' ? ({ type: 'start', caseId: event.caseId } as TraceEvent) : event));
}

/**
 * Whether an event belongs to the conversation with the user: a single agent's events, or a
 * crew orchestrator's. A member's messages go to the orchestrator, never to the user.
 */
export function facesUser(event: TraceEvent): boolean {
  return event.agent === undefined || event.agent === ORCHESTRATOR;
}

/** Whether a trace is a crew's: a crew's runtime names the agent of every event, a single agent's names none. */
export function isCrewTrace(trace: readonly TraceEvent[]): boolean {
  return trace.some((event) => event.agent !== undefined);
}
