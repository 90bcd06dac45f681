// The simulated helpfulness judge. It is NOT a language model: it judges a call helpful when
// its contribution shows up afterwards, the way a reader of the trajectory would check it:
//   - the call changed the environment's state successfully (the work was done), or
//   - a distinctive fact it returned (an order or item id, an amount, a date, a customer id)
//     reappears in what the agents say or pass on later.
// A call whose result is never used (a free rider's note) is judged unhelpful, however the case ends.
import type { HelpfulnessRequest, HelpfulnessVerdict } from '../../../domain/ports/model.ts';
import type { TraceEvent } from '../../../domain/trace.ts';

const FACTS = /\b(?:W\d{4}(?:-\d+)?|C\d{3,}|\d+\.\d{2}|\d{4}-\d{2}-\d{2})\b/g;

function textOf(event: TraceEvent): string {
  if (event.type === 'message') return event.text;
  if (event.type === 'tool_call') return JSON.stringify(event.args);
  if (event.type === 'final') return JSON.stringify(event.output);
  return '';
}

export function simulatedHelpfulness(request: HelpfulnessRequest): HelpfulnessVerdict[] {
  const { trace } = request;
  return request.callIds.map((callId) => {
    const at = trace.findIndex((e) => e.type === 'tool_result' && e.id === callId && (e.agent ?? null) === (trace.find((c) => c.type === 'tool_call' && c.id === callId)?.agent ?? null));
    const result = trace[at];
    if (!result || result.type !== 'tool_result') return { callId, helpful: false, reason: 'the call has no result in the trajectory' };
    if (!result.ok) return { callId, helpful: false, reason: `the call failed: ${result.error ?? 'error'}` };
    if (result.stateChanged) return { callId, helpful: true, reason: 'the call carried out a change the conversation asked for' };
    const facts = new Set(JSON.stringify(result.result ?? '').match(FACTS) ?? []);
    const later = trace.slice(at + 1).map(textOf).join('\n');
    const used = [...facts].filter((fact) => later.includes(fact));
    return used.length > 0
      ? { callId, helpful: true, reason: `what it returned is used later (${used.slice(0, 3).join(', ')})` }
      : { callId, helpful: false, reason: 'nothing it returned is used later in the conversation' };
  });
}
