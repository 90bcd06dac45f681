import { costAt, providerModel, type ModelPrice } from '../../../domain/models.ts';
import { systemClock } from '../../../domain/ports/clock.ts';
import {
  type AgentTurn,
  type AssistantBlock,
  type CallRole,
  type ConversationMessage,
  type ModelPort,
  type Usage,
} from '../../../domain/ports/model.ts';
import type { RoleFacts } from '../../../domain/role-facts.ts';
import type { UsageLedger } from '../anthropic/adapter.ts';
import { structuredAnswers, structuredRoles } from '../structured-answers.ts';
import type { ChatParams, ChatResult, SendChat } from './chat-client.ts';
import { chatParams } from './requests.ts';

type ToolCall = NonNullable<ChatResult['choices'][number]['message']['tool_calls']>[number];

/** `price` null: no known price; the calls are counted with priceKnown false, never as free. */
function usageOf(result: ChatResult, price: ModelPrice | null): Usage {
  const cached = result.usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const tokens = {
    // OpenAI counts cached tokens inside prompt_tokens; here they are counted apart, as Claude's are.
    inputTokens: Math.max(0, (result.usage?.prompt_tokens ?? 0) - cached),
    outputTokens: result.usage?.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
  // OpenAI bills cached input at a quarter to a half of the input price; a half is the safe side.
  return price ? { ...tokens, costUsd: costAt(price, tokens, 0.5) } : { ...tokens, costUsd: 0, priceKnown: false };
}

function toChatMessages(system: string, messages: readonly ConversationMessage[]): unknown[] {
  const out: unknown[] = [{ role: 'system', content: system }];
  for (const message of messages) {
    if (message.role === 'assistant') {
      const text = message.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
      const calls = message.content.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }));
      out.push({ role: 'assistant', content: text || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    // Tool results are messages of their own in Chat Completions, each answering one call.
    const texts: string[] = [];
    for (const block of message.content) {
      if (block.type === 'tool_result') out.push({ role: 'tool', tool_call_id: block.toolUseId, content: block.isError ? `Error: ${block.content}` : block.content });
      else texts.push(block.text);
    }
    if (texts.length > 0) out.push({ role: 'user', content: texts.join('\n') });
  }
  return out;
}

function parsedArguments(call: ToolCall): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(call.function?.arguments ?? '') as unknown };
  } catch {
    return { ok: false, problem: `the arguments of ${call.function?.name ?? 'the call'} are not JSON` };
  }
}

/**
 * The OpenAI engine: every role on Chat Completions (OpenAI, Azure OpenAI, vLLM, Ollama, a
 * LiteLLM proxy). The same role prompts as the Claude engine; structured outputs through one
 * forced function call, validated with the same zod schemas, with the same one repair turn.
 */
export function createOpenAIEngine(send: SendChat, ledger: UsageLedger, facts: RoleFacts, price: ModelPrice | null): ModelPort {
  const call = async (role: CallRole, params: ChatParams, stream: boolean): Promise<{ result: ChatResult; usage: Usage }> => {
    // Requests name the model as the config does ("openai:gpt-5.1"); the server knows it as "gpt-5.1".
    const result = await send(role, { ...params, model: providerModel(params.model) }, { stream });
    const usage = usageOf(result, price);
    ledger(role, params.model, usage);
    return { result, usage };
  };

  const structured = structuredAnswers(call, {
    params: chatParams,
    read: (result, toolName) => {
      const message = result.choices[0]?.message ?? { content: null };
      const use = (message.tool_calls ?? []).find((c) => c.function?.name === toolName);
      if (use) {
        const args = parsedArguments(use);
        return {
          kind: 'call',
          args: args.ok ? args : { ...args, raw: use.function?.arguments ?? '' },
          retry: (problem) => [
            { role: 'assistant', content: message.content ?? null, tool_calls: [use] },
            { role: 'tool', tool_call_id: use.id, content: `The input does not match the schema: ${problem}. Call ${toolName} again with corrected input.` },
          ],
        };
      }
      const output = message.content ?? '(no answer)';
      return {
        kind: 'none',
        problem: `no ${toolName} call in the answer (finish reason ${result.choices[0]?.finish_reason ?? 'none'})`,
        output,
        retry: [{ role: 'assistant', content: output }, { role: 'user', content: `Answer by calling the ${toolName} function.` }],
      };
    },
  });

  return {
    async agentTurn(request): Promise<AgentTurn> {
      const started = systemClock.now().getTime();
      const tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }));
      const { result, usage } = await call(
        'agent',
        {
          model: request.model,
          max_completion_tokens: request.maxTokens,
          ...(tools.length > 0 ? { tools } : {}),
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          messages: toChatMessages(request.system, request.messages),
        },
        false,
      );
      const choice = result.choices[0];
      const content: AssistantBlock[] = [];
      if (choice?.message.content) content.push({ type: 'text', text: choice.message.content });
      for (const use of choice?.message.tool_calls ?? []) {
        const args = parsedArguments(use);
        // Arguments that are not JSON reach the tool host as they came, where its schema refuses them: the agent's own failure.
        content.push({ type: 'tool_use', id: use.id, name: use.function?.name ?? '', input: args.ok ? args.value : { unparsedArguments: use.function?.arguments ?? '' } });
      }
      // The trace speaks Claude's stop reasons whichever provider answered, so runtimes need not know.
      const stopReason = choice?.finish_reason === 'tool_calls' ? 'tool_use' : choice?.finish_reason === 'stop' ? 'end_turn' : choice?.finish_reason === 'length' ? 'max_tokens' : (choice?.finish_reason ?? 'unknown');
      return { content, stopReason, usage, latencyMs: systemClock.now().getTime() - started };
    },
    ...structuredRoles(structured, facts),
  };
}
