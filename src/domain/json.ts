/** JSON.parse with the failure located as a 1-based line, across V8's message formats. */
export type JsonParse =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly line: number; readonly message: string };

export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, line: lineOfJsonError(text, message), message: message.replace(/\s+in JSON at position \d+.*$/, '') };
  }
}

function lineOfJsonError(text: string, message: string): number {
  const explicit = /line (\d+) column \d+/.exec(message);
  if (explicit?.[1]) return Number(explicit[1]);
  const position = /position (\d+)/.exec(message);
  if (position?.[1]) return text.slice(0, Number(position[1])).split('\n').length;
  return 1;
}

/** Canonical JSON: object keys sorted, so equal values have equal text (used for hashing and state comparison). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}

/** Reads a dot path ("expected.amount") from a value; undefined when any step is missing. */
export function atPath(value: unknown, dotPath: string | undefined): unknown {
  if (dotPath === undefined) return value;
  let current: unknown = value;
  for (const part of dotPath.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}
