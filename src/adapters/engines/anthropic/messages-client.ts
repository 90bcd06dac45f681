// The one module that imports @anthropic-ai/sdk (house rule 6). It sends one Messages API
// request for one role and returns the plain response. Calls wait their turn with the process's
// rate limiter (rate-limits.ts) and retry in the shared loop (../paced-calls.ts), not in the SDK:
// 429 is waited out for up to RATE_LIMIT_WAIT_MS; 529, other 5xx, 408, 409, connection errors and
// timeouts are retried `maxRetries` times; then InfraError: the case-trial is an infra_error.
import type Anthropic from '@anthropic-ai/sdk';
import { AgentdevelError } from '../../../domain/errors.ts';
import { AgentRequestRejected, InfraError, type CallRole } from '../../../domain/ports/model.ts';
import { replayMiss } from './cassette.ts';
import { retryAfterMs } from './rate-limits.ts';
import { callPace, observedFetch, pacedCall, sdkSettings, TRANSIENT, type ClientOptions, type Failure } from '../paced-calls.ts';

import { systemClock } from '../../../domain/ports/clock.ts';

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

export type MessagesClientOptions = ClientOptions;

export type SendMessage = (role: CallRole, params: MessageParams, options: { stream: boolean }) => Promise<MessageResult>;

type Sdk = typeof import('@anthropic-ai/sdk');

export function createMessagesClient(options: MessagesClientOptions): SendMessage {
  const pace = callPace(options, options.baseURL);
  // Every HTTP exchange's rate-limit headers reach the limiter of its call.
  const wire = observedFetch(options.fetch ?? fetch);
  // The SDK is imported by the first call: a command that calls no model never loads it.
  let loading: Promise<{ sdk: Sdk; client: Anthropic }> | null = null;
  const load = () =>
    (loading ??= import('@anthropic-ai/sdk').then((sdk) => ({
      sdk,
      client: new sdk.default({ ...sdkSettings(options, wire), ...(options.baseURL ? { baseURL: options.baseURL } : {}) }),
    })));
  return async (role, params, { stream }) => {
    const { sdk, client } = await load();
    return pacedCall({
      ...pace,
      role,
      server: 'the model API',
      send: (permit, headers) =>
        wire.run(permit, async () =>
          (await (stream
            ? client.messages.stream(params as never, { headers }).finalMessage()
            : client.messages.create({ ...params, stream: false } as never, { headers }))) as unknown as MessageResult,
        ),
      tokens: (message) => ({ input: message.usage.input_tokens + (message.usage.cache_creation_input_tokens ?? 0), output: message.usage.output_tokens }),
      sort: (error) => sortFailure(sdk, error),
      toError: (error, retries) => toInfraError(sdk, role, error, retries, params.model),
    });
  };
}

function sortFailure(sdk: Sdk, error: unknown): Failure {
  const { APIError, APIConnectionError } = sdk;
  const hint = error instanceof APIError ? retryAfterMs(error.headers, systemClock.now().getTime()) : null;
  if (error instanceof APIError && error.status === 429) return { kind: 'rate_limited', hint };
  if (error instanceof APIError || error instanceof APIConnectionError) {
    return { kind: 'api', hint, retriable: retriable(sdk, error), outage: error instanceof APIConnectionError || (error.status ?? 0) >= 500 };
  }
  // A body that is not JSON (SyntaxError) or a stream the SDK cannot follow (its base
  // AnthropicError) is a malformed response. Anything else is a bug here.
  return isMalformedResponse(sdk, error) ? { kind: 'malformed' } : { kind: 'bug' };
}

/** An error worth another try: no answer at all, or a status where the service, not the request, is at fault. */
function retriable(sdk: Sdk, error: InstanceType<Sdk['APIError']>): boolean {
  if (error instanceof sdk.APIConnectionError) return true;
  return error.status !== undefined && TRANSIENT(error.status);
}

function isMalformedResponse(sdk: Sdk, error: unknown): boolean {
  return error instanceof SyntaxError || error instanceof sdk.AnthropicError;
}

/**
 * Sorts a failed call: an outage (InfraError: never a fail), bad credentials or an unknown
 * model (the user's configuration: exit 2), or a request the API refused as invalid (for the
 * agent role, the blueprint's fault: the case fails; for the other roles, an InfraError).
 */
function toInfraError({ APIError, APIConnectionError }: Sdk, role: CallRole, error: unknown, retries: number, model: string): Error {
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
