import { costOf } from '../../../domain/models.ts';
import {
  StructuredOutputError,
  addUsage,
  zeroUsage,
  type AgentTurn,
  type AssistantBlock,
  type ConversationMessage,
  type ModelPort,
  type CallRole,
  type Usage,
  type WithUsage,
} from '../../../domain/ports/model.ts';
import type { RoleFacts } from '../../../domain/role-facts.ts';
import type { MessageParams, MessageResult, SendMessage } from './messages-client.ts';
import { criticCall, diagnosticianCall, judgeCall, messagesParams, orchestratorPromptCall, requirementsReviewCall, synthesizerCall, writerCall, type StructuredCall } from './requests.ts';
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

  async function structured<T>(spec: StructuredCall<T>): Promise<WithUsage<T>> {
    const params = messagesParams(spec);
    const messages = [...(params.messages as unknown[])];
    let usage = zeroUsage;
    let problem = '';
    let output = '(no answer)';
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = await call(spec.role, { ...params, messages: [...messages] }, spec.stream);
      usage = addUsage(usage, answer.usage);
      const use = answer.result.content.find(
        (b): b is { type: 'tool_use'; id: string; name: string; input: unknown } => b.type === 'tool_use' && (b as { name?: string }).name === spec.tool.name,
      );
      if (use) {
        const parsed = spec.tool.schema.safeParse(use.input);
        if (parsed.success) return { value: parsed.data, usage, ...(attempt > 0 ? { repairs: [problem] } : {}) };
        problem = parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
        output = JSON.stringify(use.input, null, 2);
        messages.push(
          { role: 'assistant', content: answer.result.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, is_error: true, content: `The input does not match the schema: ${problem}. Call ${spec.tool.name} again with corrected input.` }] },
        );
      } else {
        problem = `no ${spec.tool.name} call in the answer (stop reason ${answer.result.stop_reason ?? 'none'})`;
        const content = answer.result.content.length > 0 ? answer.result.content : [{ type: 'text', text: '(no answer)' }];
        output = content.map((b) => ('text' in b ? String(b.text) : JSON.stringify(b))).join('\n');
        messages.push({ role: 'assistant', content }, { role: 'user', content: `Answer by calling the ${spec.tool.name} tool.` });
      }
    }
    throw new StructuredOutputError(spec.role, `the ${spec.role}'s output was invalid after one repair: ${problem}`, output, problem);
  }

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

    criticize: (request) => structured(criticCall(request, facts)),
    writeDiagnosisScript: (request) => structured(diagnosticianCall(request, facts)),
    synthesize: (request) => structured(synthesizerCall(request, facts)),
    reviewRequirements: (request) => structured(requirementsReviewCall(request, facts)),
    judgeHelpfulness: (request) => structured(judgeCall(request, facts)),
    writeMember: (request) => structured(writerCall(request, facts)),
    writeOrchestratorPrompt: (request) => structured(orchestratorPromptCall(request, facts)),
  };
}
