import { describe, expect, it } from 'vitest';
import type { CaseRecord } from '../../src/domain/record.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { diagnosisRecordJsonSchema, RECORD_SCHEMA_DOC } from '../../src/stages/diagnose/record-schema.ts';

type Schema = { properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[] };

/** The key paths of a value ("critic.requirements[].id"), leaves included. */
function paths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => paths(item, `${prefix}[]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const here = prefix ? `${prefix}.${key}` : key;
    // Free-form values (output, args, expected) are any: their insides are the agent's, not the record's.
    return [here, ...(['output', 'args', 'result', 'expected', 'actual'].includes(key) ? [] : paths(inner, here))];
  });
}

/** Whether a JSON Schema names a key path (through unions and arrays). */
function names(schema: Schema, path: string): boolean {
  const [head, ...rest] = path.split('.');
  const options = schema.anyOf ?? schema.oneOf ?? [schema];
  return options.some((option) => {
    const key = (head as string).replace(/\[\]$/, '');
    const field = option.properties?.[key];
    if (!field) return false;
    const inner = (head as string).endsWith('[]') ? [...(field.anyOf ?? [field])].map((f) => f.items).find(Boolean) : field;
    if (!inner) return false;
    return rest.length === 0 || names(inner, rest.join('.'));
  });
}

// A record with every field the code writes: a failed scorer check with its structured reason,
// a critic with requirement verdicts, the agent's own error, and each kind of trace event.
const fullRecord = {
  caseId: 'c1',
  trial: 0,
  status: 'ok',
  pass: false,
  output: { answer: 180 },
  scorer: { pass: false, decides: true, checks: [{ scorer: 'numeric', pass: false, code: 'out_of_tolerance', message: 'm', value: 180, decides: true, where: 'answer', expected: 212, actual: 180 }] },
  critic: { pass: false, label: 'wrong_offset', description: 'd', requirements: [{ id: 'r1', pass: false, reason: 'r' }] },
  error: null,
  agentError: 'boom',
  trace: [
    { type: 'start', caseId: 'c1', trial: 0, at: '2026-01-01T00:00:00Z' },
    { type: 'message', role: 'user', text: 't' },
    { type: 'tool_call', id: 'a', name: 'n', args: { x: 1 } },
    { type: 'tool_result', id: 'a', ok: false, error: 'e', stateChanged: false },
    { type: 'llm', model: 'm', inputTokens: 1, outputTokens: 1, latencyMs: 1, stopReason: 's' },
    { type: 'error', kind: 'agent', message: 'boom' },
    { type: 'final', output: 1 },
  ],
  // The compiler holds this sample to the record type: a field added to CaseRecord must be added here too.
  // verdictKey is the store's bookkeeping (judge once), left out of what the diagnosis reads.
} satisfies Required<Omit<CaseRecord, 'traceRef' | 'verdictKey'>> & { trace: TraceEvent[] };

describe('the record schema the diagnostician is shown', () => {
  it('names every field of a full sample record, and fails on one it lacks', () => {
    const schema = diagnosisRecordJsonSchema() as Schema;
    const missing = paths(fullRecord).filter((p) => !names(schema, p));
    expect(missing).toEqual([]);
    // The check itself bites: a field the schema lacks is reported.
    expect(paths({ ...fullRecord, critic: { ...fullRecord.critic, confidence: 0.9 } }).filter((p) => !names(schema, p))).toEqual(['critic.confidence']);
    for (const field of ['"requirements"?', '"agentError"?', '"error"', '"where"?', '"expected"?', '"actual"?']) expect(RECORD_SCHEMA_DOC).toContain(field);
  });
});
