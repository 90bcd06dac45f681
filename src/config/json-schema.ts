import { z } from '../domain/zod.ts';
import { configSchema } from './schema.ts';

/** The JSON Schema of agentdevel.config.json, for editors (completion, inline errors). */
export function configJsonSchema(): string {
  const schema = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...schema, title: 'agentdevel.config.json' }, null, 2)}\n`;
}
