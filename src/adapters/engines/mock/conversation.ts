import type { ConversationMessage } from '../../../domain/ports/model.ts';

/** What the simulated agent can read back from its own conversation. */
export interface ToolExchange {
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly ok: boolean;
  readonly result: unknown;
}

export interface ConversationView {
  readonly opening: string;
  readonly userTexts: readonly string[];
  readonly calls: readonly ToolExchange[];
  /** The last thing the agent said to the customer, and the customer's answer to it (if any). */
  readonly lastQuestion: { readonly text: string; readonly answer: string | null } | null;
}

export function readConversation(messages: readonly ConversationMessage[]): ConversationView {
  const userTexts: string[] = [];
  const calls: ToolExchange[] = [];
  const pending = new Map<string, { name: string; input: Record<string, unknown> }>();
  let lastQuestion: { text: string; answer: string | null } | null = null;
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const block of message.content) {
        if (block.type === 'tool_use') pending.set(block.id, { name: block.name, input: (block.input ?? {}) as Record<string, unknown> });
        else if (block.text.trim()) lastQuestion = { text: block.text, answer: null };
      }
      continue;
    }
    for (const block of message.content) {
      if (block.type === 'text') {
        userTexts.push(block.text);
        if (lastQuestion && lastQuestion.answer === null) lastQuestion = { ...lastQuestion, answer: block.text };
      } else {
        const call = pending.get(block.toolUseId);
        if (!call) continue;
        let result: unknown = block.content;
        try {
          result = JSON.parse(block.content);
        } catch {
          // Plain-text results stay strings.
        }
        calls.push({ ...call, ok: !block.isError, result });
        lastQuestion = null;
      }
    }
  }
  return { opening: userTexts[0] ?? '', userTexts, calls, lastQuestion };
}
