// A structured call (anthropic/requests.ts: the same role prompts for every provider) as a Chat
// Completions body. What differs from the Messages rendering: the system blocks are one system
// message (no cache_control: OpenAI caches long prefixes on its own), the forced tool is a
// function named in tool_choice, and the schema is strict only where strict mode accepts it.
import { z } from '../../../domain/zod.ts';
import type { StructuredCall } from '../anthropic/requests.ts';
import type { ChatParams } from './chat-client.ts';

/**
 * Strict mode (the server holds the answer to the schema) accepts only objects that close
 * their properties and require every one of them; other schemas are sent as they are, and the
 * zod check after the answer holds them.
 */
export function strictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(strictCompatible);
  if (schema === null || typeof schema !== 'object') return true;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object' || node.properties) {
    const properties = Object.keys((node.properties as Record<string, unknown> | undefined) ?? {});
    const required = new Set((node.required as string[] | undefined) ?? []);
    if (node.additionalProperties !== false || properties.some((p) => !required.has(p))) return false;
  }
  return Object.values(node).every(strictCompatible);
}

export function chatParams<T>(call: StructuredCall<T>): ChatParams {
  const parameters = z.toJSONSchema(call.tool.schema, { io: 'input' }) as Record<string, unknown>;
  delete parameters.$schema;
  const strict = strictCompatible(parameters);
  return {
    model: call.model,
    max_completion_tokens: call.maxTokens,
    messages: [
      { role: 'system', content: call.system.join('\n\n') },
      { role: 'user', content: call.user },
    ],
    tools: [{ type: 'function', function: { name: call.tool.name, description: call.tool.description, parameters, ...(strict ? { strict: true } : {}) } }],
    tool_choice: { type: 'function', function: { name: call.tool.name } },
  };
}
