import { AgentdevelError, type ErrorCode } from './errors.ts';
import { parseJson } from './json.ts';
import { firstIssue } from './schema-issue.ts';
import type { ZodType } from './zod.ts';

/**
 * Documents are parsed once each (many are read with a schema built for that read), so zod's
 * compiled fast path for object schemas (generated code, compiled at the first parse) costs
 * more than it saves: a document is checked by the plain parser. Code that parses many values
 * of one schema in a loop keeps the fast path.
 */
const ONCE = { jitless: true } as const;

/**
 * Parses a JSON document against its schema. The first problem becomes one error naming the
 * file and the line (syntax) or the key path (shape), with the given catalogue code.
 */
export function parseJsonDocument<T>(text: string, file: string, schema: ZodType<T>, code: ErrorCode): T {
  const parsed = parseJson(text);
  if (!parsed.ok) {
    throw new AgentdevelError(code, `${file}:${parsed.line}: not valid JSON: ${parsed.message}`, { location: { file, line: parsed.line } });
  }
  const checked = schema.safeParse(parsed.value, ONCE);
  if (!checked.success) {
    const { key, message } = firstIssue(checked.error);
    throw new AgentdevelError(code, `${file}: ${key}: ${message}`, { location: { file, key } });
  }
  return checked.data;
}

/** A small state file agentdevel wrote itself (a lock, a journal): its value, or 'damaged' when the text is not that document. */
export function parseStateDocument<T>(text: string, schema: ZodType<T>): T | 'damaged' {
  const parsed = parseJson(text);
  const checked = parsed.ok ? schema.safeParse(parsed.value, ONCE) : null;
  return checked?.success ? checked.data : 'damaged';
}
