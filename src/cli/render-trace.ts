import type { TraceEvent } from '../domain/trace.ts';

const oneLine = (value: unknown, max = 160): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/** One trace event as one terminal line (tool calls with their arguments, results with their values). */
export function traceLine(event: TraceEvent): string {
  // A crew's events say which agent produced them.
  return event.agent ? `[${event.agent}] ${eventLine(event)}` : eventLine(event);
}

function eventLine(event: TraceEvent): string {
  switch (event.type) {
    case 'start':
      return `start (trial ${event.trial})`;
    case 'message':
      return `${event.role}: ${oneLine(event.text, 300)}`;
    case 'tool_call':
      return `→ ${event.name}(${oneLine(event.args)})  [${event.id}]`;
    case 'tool_result':
      return `← ${event.ok ? 'ok' : 'ERROR'} ${oneLine(event.ok ? event.result : event.error)}  [${event.id}]`;
    case 'llm':
      return `· llm ${event.model}${event.stopReason ? ` (${event.stopReason})` : ''}${event.outputTokens === undefined ? '' : `, ${event.outputTokens} tokens out`}`;
    case 'error':
      return `✗ ${event.kind} error: ${event.message}`;
    case 'final':
      return `final: ${oneLine(event.output, 300)}`;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

/** A value as indented pretty JSON (strings as they are). */
export function indented(value: unknown, indent = '    '): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? 'nothing';
  return text
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n');
}
