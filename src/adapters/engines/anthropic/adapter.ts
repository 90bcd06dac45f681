import { costOf } from '../../../domain/models.ts';
import {
  StructuredOutputError,
  type AgentTurn,
  type AssistantBlock,
  type ConversationMessage,
  type ModelPort,
  type CallRole,
  type Usage,
} from '../../../domain/ports/model.ts';
import type { RoleFacts } from '../../../domain/role-facts.ts';
import type { MessageParams, MessageResult, SendMessage } from './messages-client.ts';
import { messagesParams } from './requests.ts';
import { structuredAnswers, structuredRoles } from '../structured-answers.ts';
import { systemClock } from '../../../domain/ports/clock.ts';

/** Receives the usage and cost of every call, failed or not (the cost ledger). */
export type UsageLedger = (role: CallRole, model: string, usage: Usage) => void;

export { StructuredOutputError };

const CACHE = { type: 'ephemeral' } as const;

function usageOf(model: string, result: MessageResult): Usage {
  const tokens = {
    inputTokens: result.usage.input_tokens ?? 0,
    outputTokens: result.usage.output_tokens ?? 0,
    cacheReadTokens: result.usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: result.usage.cache_creation_input_tokens ?? 0,
  };
  return { ...tokens, costUsd: costOf(model, tokens) };
}

function toApiMessages(messages: readonly ConversationMessage[]): unknown[] {
  return messages.map((message) =>
    message.role === 'assistant'
      ? {
          role: 'assistant',
          content: message.content.map((block) =>
            block.type === 'text' ? { type: 'text', text: block.text } : { type: 'tool_use', id: block.id, name: block.name, input: block.input },
          ),
        }
      : {
          role: 'user',
          content: message.content.map((block) =>
            block.type === 'text'
              ? { type: 'text', text: block.text }
              : { type: 'tool_result', tool_use_id: block.toolUseId, content: block.content, is_error: block.isError },
          ),
        },
  );
}

/**
 * The Claude engine: every role on the Messages API. Structured outputs use forced tool use and
 * are validated with zod; an invalid output gets one repair turn before it counts as an error.
 * Every role's request tells it the date and the runtime (`facts`).
 */
export function createClaudeEngine(send: SendMessage, ledger: UsageLedger, facts: RoleFacts): ModelPort {
  const call = async (role: CallRole, params: MessageParams, stream: boolean): Promise<{ result: MessageResult; usage: Usage }> => {
    const result = await send(role, params, { stream });
    const usage = usageOf(params.model, result);
    ledger(role, params.model, usage);
    return { result, usage };
  };

  const structured = structuredAnswers(call, {
    params: messagesParams,
    read: (result, toolName) => {
      const use = result.content.find((b): b is { type: 'tool_use'; id: string; name: string; input: unknown } => b.type === 'tool_use' && (b as { name?: string }).name === toolName);
      if (use) {
        return {
          kind: 'call',
          args: { ok: true, value: use.input },
          retry: (problem) => [
            { role: 'assistant', content: result.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, is_error: true, content: `The input does not match the schema: ${problem}. Call ${toolName} again with corrected input.` }] },
          ],
        };
      }
      const content = result.content.length > 0 ? result.content : [{ type: 'text', text: '(no answer)' }];
      return {
        kind: 'none',
        problem: `no ${toolName} call in the answer (stop reason ${result.stop_reason ?? 'none'})`,
        output: content.map((b) => ('text' in b ? String(b.text) : JSON.stringify(b))).join('\n'),
        retry: [{ role: 'assistant', content }, { role: 'user', content: `Answer by calling the ${toolName} tool.` }],
      };
    },
  });

  return {
    async agentTurn(request): Promise<AgentTurn> {
      const tools = request.tools.map((tool, index) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.inputSchema,
        ...(index === request.tools.length - 1 ? { cache_control: CACHE } : {}),
      }));
      const started = systemClock.now().getTime();
      const { result, usage } = await call(
        'agent',
        {
          model: request.model,
          max_tokens: request.maxTokens,
          system: [{ type: 'text', text: request.system, cache_control: CACHE }],
          ...(tools.length > 0 ? { tools } : {}),
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          messages: toApiMessages(request.messages),
        },
        false,
      );
      const content: AssistantBlock[] = [];
      for (const block of result.content) {
        if (block.type === 'text') content.push({ type: 'text', text: (block as { text: string }).text });
        else if (block.type === 'tool_use') {
          const use = block as { id: string; name: string; input: unknown };
          content.push({ type: 'tool_use', id: use.id, name: use.name, input: use.input });
        }
      }
      return { content, stopReason: result.stop_reason ?? 'unknown', usage, latencyMs: systemClock.now().getTime() - started };
    },

    ...structuredRoles(structured, facts),
  };
}
