// An answerer that reads nothing but a tool's JSON Schema: the first value each constraint
// allows (const, then the enum in order, then a small pool of strings for a pattern). If the
// schema is all a role's contract asks, this answer passes it; if the contract also lives in
// prose the answer breaks it.
type JsonSchema = {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
};

const STRING_POOL = ['ok', 'unexpected_output', 'x', 'a one-line reason'];

/**
 * `index` picks the index-th enum value, so the items of an array with an enum id are distinct.
 * `fill` gives an array one item even where none is required (as many as maxItems allows), so
 * that the constraints on its items are exercised too.
 */
export function schemaOnlyAnswer(schema: JsonSchema, index = 0, options: { readonly fill?: boolean } = {}): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[index % schema.enum.length];
  switch (schema.type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((key) => [key, schemaOnlyAnswer(schema.properties?.[key] ?? {}, index, options)]));
    case 'array': {
      const length = Math.min(Math.max(schema.minItems ?? 0, options.fill ? 1 : 0), schema.maxItems ?? Infinity);
      return Array.from({ length }, (_, i) => schemaOnlyAnswer(schema.items ?? {}, i, options));
    }
    case 'boolean':
      return true;
    case 'number':
    case 'integer':
      return schema.minimum ?? 0;
    default: {
      const fits = (s: string) => (schema.pattern === undefined || new RegExp(schema.pattern).test(s)) && s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity);
      const found = STRING_POOL.find(fits);
      if (found === undefined) throw new Error(`schema-only answerer: no string of its pool fits ${JSON.stringify(schema)}`);
      return found;
    }
  }
}
