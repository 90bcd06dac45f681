// What the synthesizer is shown of one failing trace. The events of the components the diagnosis
// or the credit names (a wrapper's calls and results, a member's turns) are the cause a model must
// see: they are kept first, and other events are cut before them. The rest is shown from the ends
// (the request and the outcome) inward, as far as the event allowance goes.
import { criticView, type TraceEvent } from '../../domain/trace.ts';

/** Events shown of a trace before the budget's leftover is shared out: the first and the last. */
export const HEAD_EVENTS = 3;
export const TAIL_EVENTS = 9;

/** The components an excerpt keeps first, by the names the trace uses (a wrapper's tool name, a member's agent name). */
export interface ExcerptFocus {
  readonly tools: ReadonlySet<string>;
  readonly members: ReadonlySet<string>;
}

export const NO_FOCUS: ExcerptFocus = { tools: new Set(), members: new Set() };

/** Positions (in the critic's view of the trace) of the events that belong to a focused component: its calls, their results, a member's own events. */
export function focusedEvents(seen: readonly TraceEvent[], focus: ExcerptFocus): number[] {
  const calls = new Set<string>();
  const key = (event: TraceEvent, id: string) => `${event.agent ?? ''}\u0000${id}`;
  const kept: number[] = [];
  seen.forEach((event, index) => {
    const own = event.agent !== undefined && focus.members.has(event.agent);
    const called = event.type === 'tool_call' && (focus.tools.has(event.name) || focus.members.has(event.name));
    if (called) calls.add(key(event, event.id));
    const answered = event.type === 'tool_result' && calls.has(key(event, event.id));
    if (own || called || answered) kept.push(index);
  });
  return kept;
}

/** The order events are given room in: focused ones, then the ends (head, then tail from the last), then the rest in order. */
export function excerptPriority(seen: readonly TraceEvent[], focus: ExcerptFocus): number[] {
  const order = focusedEvents(seen, focus);
  const taken = new Set(order);
  const add = (index: number) => {
    if (index < 0 || index >= seen.length || taken.has(index)) return;
    taken.add(index);
    order.push(index);
  };
  for (let i = 0; i < HEAD_EVENTS; i += 1) add(i);
  for (let i = 0; i < TAIL_EVENTS; i += 1) add(seen.length - 1 - i);
  for (let i = 0; i < seen.length; i += 1) add(i);
  return order;
}

export interface TraceExcerpt {
  readonly events: TraceEvent[];
  readonly omitted: number;
}

/** A trace's excerpt with room for `room` events (never fewer than its focused events), in trace order. */
export function excerptOf(seen: readonly TraceEvent[], priority: readonly number[], room: number, clip: (event: TraceEvent) => TraceEvent): TraceExcerpt {
  const chosen = priority.slice(0, Math.min(room, priority.length)).sort((a, b) => a - b);
  return { events: chosen.map((index) => clip(seen[index] as TraceEvent)), omitted: seen.length - chosen.length };
}

/** The default excerpt: the focused events, and the ends as far as HEAD_EVENTS + TAIL_EVENTS go. */
export function traceExcerpt(trace: readonly TraceEvent[], focus: ExcerptFocus, clip: (event: TraceEvent) => TraceEvent): TraceExcerpt & { seen: TraceEvent[]; priority: number[] } {
  const seen = criticView(trace);
  const priority = excerptPriority(seen, focus);
  const room = Math.max(focusedEvents(seen, focus).length, HEAD_EVENTS + TAIL_EVENTS);
  return { ...excerptOf(seen, priority, room, clip), seen, priority };
}
