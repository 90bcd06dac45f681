// The one module that imports @anthropic-ai/sdk (house rule 6). It sends one Messages API
// request for one role and returns the plain response, or throws InfraError once the SDK's
// retries (429, 529, other 5xx, connection errors; retry-after honoured) are spent.
import type Anthropic from '@anthropic-ai/sdk';
import { AgentdevelError } from '../../domain/errors.ts';
import { AgentRequestRejected, InfraError, type Role } from '../../domain/model-port.ts';
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

type Sdk = typeof import('@anthropic-ai/sdk');

export function createMessagesClient(options: MessagesClientOptions): SendMessage {
  // The SDK is imported by the first call: a command that calls no model never loads it.
  let loading: Promise<{ sdk: Sdk; client: Anthropic }> | null = null;
  const load = () =>
    (loading ??= import('@anthropic-ai/sdk').then((sdk) => ({
      sdk,
      client: new sdk.default({
        apiKey: options.apiKey,
        ...(options.baseURL ? { baseURL: options.baseURL } : {}),
        maxRetries: options.maxRetries,
        timeout: options.timeoutMs,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    })));
  return async (role, params, { stream }) => {
    const { sdk, client } = await load();
    const { APIError, APIConnectionError } = sdk;
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
        // The API answered with an error, or could not be reached, after the SDK's retries.
        if (error instanceof APIError || error instanceof APIConnectionError) throw toInfraError(sdk, role, error, options.maxRetries, params.model);
        // A body that is not JSON (SyntaxError) or a stream the SDK cannot follow (its base
        // AnthropicError) is a malformed response: try again. Anything else is a bug here and
        // propagates as itself (exit 70), never as an infrastructure error.
        if (!isMalformedResponse(sdk, error)) throw error;
        lastError = error;
      }
    }
    throw toInfraError(sdk, role, lastError, options.maxRetries, params.model);
  };
}

function isMalformedResponse(sdk: Sdk, error: unknown): boolean {
  return error instanceof SyntaxError || error instanceof sdk.AnthropicError;
}

/** Statuses worth retrying, as the SDK retries them: the service, not the request, is at fault. */
const TRANSIENT = (status: number): boolean => status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * Sorts a failed call: an outage (InfraError: never a fail), bad credentials or an unknown
 * model (the user's configuration: exit 2), or a request the API refused as invalid (for the
 * agent role, the blueprint's fault: the case fails; for the other roles, an InfraError).
 */
function toInfraError({ APIError, APIConnectionError }: Sdk, role: Role, error: unknown, retries: number, model: string): Error {
  const miss = error instanceof APIError ? replayMiss(error.headers) : null;
  if (miss) return miss;
  if (error instanceof APIConnectionError) {
    return new InfraError(role, `the model API could not be reached after ${retries} retries: ${error.message}`, { cause: error });
  }
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    const requestId = error.requestID ? ` (request ${error.requestID})` : '';
    const detail = `${status}${requestId}: ${error.message.slice(0, 300)}`;
    if (status === 401 || status === 403) {
      // A key was sent (a missing one is refused before any call): the server does not accept it.
      const what = status === 401 ? 'refused the API key' : 'refused the API key access to this request';
      return new AgentdevelError('API_KEY_REJECTED', `the model API ${what} for the ${role} (${detail})`, { cause: error });
    }
    if (status === 404) {
      return new AgentdevelError('CONFIG_INVALID', `models.${role}: the model API does not know "${model}" (${detail})`, { cause: error });
    }
    if (TRANSIENT(status)) return new InfraError(role, `the model API answered ${status} after ${retries} retries${requestId}: ${error.message.slice(0, 300)}`, { cause: error });
    if (role === 'agent') return new AgentRequestRejected(`the model API refused the agent's request (${detail})`, { cause: error });
    return new InfraError(role, `the model API refused the ${role}'s request (${detail})`, { cause: error });
  }
  return new InfraError(role, `the model API sent a response that could not be read: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}
