import { z } from '../domain/zod.ts';
import { blueprintManifestSchema } from '../domain/blueprint-manifest.ts';
import { taskManifestSchema } from '../domain/task-manifest.ts';
import { configSchema } from './schema.ts';

/** The JSON Schema of agentdevel.config.json, for editors (completion, inline errors). */
export function configJsonSchema(): string {
  const schema = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...schema, title: 'agentdevel.config.json' }, null, 2)}\n`;
}

function jsonSchema(schema: z.ZodType, title: string): string {
  const generated = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...generated, title }, null, 2)}\n`;
}

/** Every JSON Schema agentdevel ships, by file name (written by scripts/write-config-schema.ts, copied by `init`). */
export function shippedJsonSchemas(): Record<string, string> {
  return {
    'agentdevel.config.schema.json': configJsonSchema(),
    'blueprint.schema.json': jsonSchema(blueprintManifestSchema, 'blueprints/<name>/blueprint.json'),
    'task.schema.json': jsonSchema(taskManifestSchema, 'rubrics/<task>/task.json'),
  };
}
