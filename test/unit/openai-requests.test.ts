import { describe, expect, it } from 'vitest';
import { criticCall, messagesParams } from '../../src/adapters/engines/anthropic/requests.ts';
import { chatParams, strictCompatible } from '../../src/adapters/engines/openai/requests.ts';

const facts = { today: '2031-02-03', node: 'v20.99.0', builtins: { available: [], missing: [] } };
const call = criticCall({ model: 'openai:gpt-5.1', rubric: 'Be kind.', trace: [], scorer: null, taxonomy: [] }, facts);

describe('one role call, rendered for each provider', () => {
  it('forces the tool the way each API names it, with the same schema and the same words', () => {
    const messages = messagesParams(call) as unknown as Record<string, unknown> & { tools: Array<Record<string, unknown>>; system: Array<Record<string, unknown>> };
    const chat = chatParams(call) as unknown as Record<string, unknown> & { tools: Array<{ type: string; function: Record<string, unknown> }>; messages: Array<{ role: string; content: string }> };
    expect(messages.tool_choice).toEqual({ type: 'tool', name: 'submit_verdict' });
    expect(chat.tool_choice).toEqual({ type: 'function', function: { name: 'submit_verdict' } });
    expect(chat.tools[0]?.function.parameters).toEqual(messages.tools[0]?.input_schema);
    // Claude's system blocks carry cache_control; Chat Completions gets one system message and no cache hints.
    expect(messages.system.every((b) => (b.cache_control as { type: string }).type === 'ephemeral')).toBe(true);
    expect(chat.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(chat.messages[0]?.content).toBe(call.system.join('\n\n'));
    expect(JSON.stringify(chat)).not.toContain('cache_control');
    expect(chat.max_completion_tokens).toBe(messages.max_tokens);
  });

  it('asks for strict mode only where the schema closes and requires every property', () => {
    const closed = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    expect(strictCompatible(closed)).toBe(true);
    expect(strictCompatible({ ...closed, required: [] })).toBe(false);
    expect(strictCompatible({ ...closed, additionalProperties: undefined })).toBe(false);
    expect(strictCompatible({ type: 'object', properties: { list: { type: 'array', items: { ...closed, required: [] } } }, required: ['list'], additionalProperties: false })).toBe(false);
    const tool = (chatParams(call).tools as Array<{ function: { strict?: boolean; parameters: unknown } }>)[0];
    expect(tool?.function.strict === true).toBe(strictCompatible(tool?.function.parameters));
  });
});
