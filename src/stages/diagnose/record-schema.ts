// The record format a diagnosis script reads, given to the diagnostician model. It is generated
// from the schemas the code writes records with, so a field the records carry cannot be missing
// from what the model is told (a test holds every field of a full sample record to it).
import { criticVerdictSchema, scorerResultSchema } from '../../domain/record.ts';
import { traceEventSchema } from '../../domain/trace.ts';
import { z } from '../../domain/zod.ts';

/** One line of RECORDS.jsonl: a record with its trace inline. */
export const diagnosisRecordSchema = z.object({
  caseId: z.string(),
  trial: z.number(),
  status: z.enum(['ok', 'infra_error']).describe('infra_error records have no verdict: never count them as failures'),
  pass: z.boolean().nullable().describe("final pass: the scorer's verdict when there is one, else the critic's"),
  output: z.unknown().describe("the agent's final output"),
  scorer: scorerResultSchema.nullable().describe('every scorer check; a failed one says where, what was expected and what was found'),
  critic: criticVerdictSchema.nullable().describe('null when the critic was not asked (the scorers passed the case); label: the symptom ("ok" when passing)'),
  error: z.string().nullable().describe('why an infra_error record has no verdict'),
  agentError: z.string().nullable().optional().describe('the first error the agent reported in its trace'),
  trace: z.array(traceEventSchema).describe('what happened, in order'),
});

type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  description?: string;
};

/** A JSON Schema as a compact type: { "a": string, "b"?: number | null }. */
export function typeText(schema: JsonSchema): string {
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map(typeText).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeText({ ...schema, type })).join(' | ');
  switch (schema.type) {
    case 'object': {
      const required = new Set(schema.required ?? []);
      const fields = Object.entries(schema.properties ?? {}).map(([key, value]) => `"${key}"${required.has(key) ? '' : '?'}: ${typeText(value)}`);
      return fields.length === 0 ? 'object' : `{ ${fields.join(', ')} }`;
    }
    case 'array':
      return `${schema.items ? wrap(typeText(schema.items)) : 'any'}[]`;
    case 'null':
      return 'null';
    case 'integer':
      return 'number';
    case undefined:
      return 'any';
    default:
      return String(schema.type);
  }
}

const wrap = (text: string): string => (text.includes(' | ') ? `(${text})` : text);

/** The top-level fields one a line, with the schema's description as a comment. */
function recordText(): string {
  const schema = z.toJSONSchema(diagnosisRecordSchema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {});
  const lines = entries.map(([key, value], index) => {
    const { description, ...type } = value;
    const text = key === 'trace' && type.items ? `[\n    ${typeText(type.items).split(' | {').join('\n    | {')}\n  ]` : typeText(type);
    const comma = index < entries.length - 1 ? ',' : '';
    return `  "${key}"${required.has(key) ? '' : '?'}: ${text}${comma}${description ? `   // ${description}` : ''}`;
  });
  return `{\n${lines.join('\n')}\n}`;
}

/** The JSON Schema of a record, for tests and tools. */
export function diagnosisRecordJsonSchema(): JsonSchema {
  return z.toJSONSchema(diagnosisRecordSchema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
}

export const RECORD_SCHEMA_DOC = `Each line of RECORDS.jsonl is one JSON object (one case-trial):
${recordText()}
The script runs as: node script.mjs RECORDS.jsonl REPORT.json (an ES module; only node: built-ins).
It may read RECORDS.jsonl and write REPORT.json, nothing else: no network, no environment
variables, no child processes. REPORT.json must be exactly this (every "label" is a label of
the taxonomy; unknown fields are refused):
{
  "summary": string,
  "totals": { "records": number, "failing": number, "infraErrors": number },
  "dominantSymptoms": [{                 // most frequent first
    "label": string, "count": number, "share": number (0..1 of failing), "description": string,
    "subPatterns"?: [{ "name": string (snake_case), "description": string, "caseIds": string[] }]   // finer patterns under this label
  }],
  "patterns": [{ "label": string, "pattern": string, "count": number, "caseIds": string[] }],   // trace patterns that go with a symptom
  "representativeCases": [{ "caseId": string, "label": string, "description": string }],
  "affectedSurface": [{ "label": string, "caseIds": string[] }],   // which cases each symptom touches
  "notes"?: string[]                     // anything else the release engineer should read
}`;
