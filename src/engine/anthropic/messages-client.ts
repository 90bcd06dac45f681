// The one module that imports @anthropic-ai/sdk (house rule 6). It sends one Messages API
// request for one role and returns the plain response, or throws InfraError once the SDK's
// retries (429, 529, other 5xx, connection errors; retry-after honoured) are spent.
import Anthropic, { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import { InfraError, type Role } from '../../domain/model-port.ts';
import { replayMiss } from './cassette.ts';

export type MessageParams = Record<string, unknown> & { model: string; max_tokens: number };

/** The parts of a Messages API response agentdevel reads. */
export interface MessageResult {
  readonly id: string;
  readonly content: ReadonlyArray<
    | { readonly type: 'text'; readonly text: string }
    | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown }
    | { readonly type: string }
  >;
  readonly stop_reason: string | null;
  readonly usage: {
    readonly input_tokens: number;
    readonly output_tokens: number;
    readonly cache_creation_input_tokens?: number | null;
    readonly cache_read_input_tokens?: number | null;
  };
}

export interface MessagesClientOptions {
  readonly apiKey: string;
  /** Null: the SDK's default (ANTHROPIC_BASE_URL, else the public API). */
  readonly baseURL: string | null;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  /** Lets record/replay sit under the SDK, on the wire. */
  readonly fetch?: typeof fetch;
}

export type SendMessage = (role: Role, params: MessageParams, options: { stream: boolean }) => Promise<MessageResult>;

/** A response the SDK could not read (a malformed body): retried here, since the SDK does not. */
const MALFORMED_RETRIES = 2;

export function createMessagesClient(options: MessagesClientOptions): SendMessage {
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    maxRetries: options.maxRetries,
    timeout: options.timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return async (role, params, { stream }) => {
    // The role header lets proxies attribute cost to agent, critic, diagnostician or synthesizer.
    const requestOptions = { headers: { 'x-agentdevel-role': role } };
    let lastError: unknown;
    for (let attempt = 0; attempt <= MALFORMED_RETRIES; attempt += 1) {
      try {
        const message = stream
          ? await client.messages.stream(params as never, requestOptions).finalMessage()
          : await client.messages.create({ ...params, stream: false } as never, requestOptions);
        return message as unknown as MessageResult;
      } catch (error) {
        lastError = error;
        if (error instanceof APIError || error instanceof APIConnectionError) break;
        // Anything else here is a response the SDK could not parse: try again.
      }
    }
    throw toInfraError(role, lastError, options.maxRetries);
  };
}

function toInfraError(role: Role, error: unknown, retries: number): Error {
  const miss = error instanceof APIError ? replayMiss(error.headers) : null;
  if (miss) return miss;
  if (error instanceof APIConnectionError) {
    return new InfraError(role, `the model API could not be reached after ${retries} retries: ${error.message}`, { cause: error });
  }
  if (error instanceof APIError) {
    const requestId = error.requestID ? ` (request ${error.requestID})` : '';
    const retried = error.status === 429 || (error.status ?? 0) >= 500 ? ` after ${retries} retries` : '';
    return new InfraError(role, `the model API answered ${error.status ?? 'an error'}${retried}${requestId}: ${error.message.slice(0, 300)}`, { cause: error });
  }
  return new InfraError(role, `the model API sent a response that could not be read: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}
