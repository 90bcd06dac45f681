// The one module that imports `openai` (house rule 6). It sends one Chat Completions request
// for one role and returns the plain response. Retries are ours, as the Claude client's are
// (anthropic/messages-client.ts), in the same loop (../paced-calls.ts) with the same pace:
//   - 429 (rate limited) is waited out, retry-after honoured, for up to RATE_LIMIT_WAIT_MS;
//   - 5xx, 408, 409, connection errors and timeouts are retried `maxRetries` times;
// then the call throws InfraError. A refused key is the user's configuration (exit 2).
import type OpenAI from 'openai';
import { AgentdevelError } from '../../../domain/errors.ts';
import { AgentRequestRejected, InfraError, type CallRole } from '../../../domain/ports/model.ts';
import { systemClock } from '../../../domain/ports/clock.ts';
import { replayMiss } from '../anthropic/cassette.ts';
import { retryAfterMs } from '../anthropic/rate-limits.ts';
import { callPace, observedFetch, pacedCall, sdkSettings, TRANSIENT, type ClientOptions, type Failure } from '../paced-calls.ts';

export type ChatParams = Record<string, unknown> & { model: string };

/** The parts of a Chat Completions response agentdevel reads. */
export interface ChatResult {
  readonly id: string;
  readonly choices: ReadonlyArray<{
    readonly finish_reason: string | null;
    readonly message: {
      readonly content: string | null;
      readonly tool_calls?: ReadonlyArray<{ readonly id: string; readonly type: string; readonly function?: { readonly name: string; readonly arguments: string } }> | null;
    };
  }>;
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number; readonly prompt_tokens_details?: { readonly cached_tokens?: number | null } | null } | null;
}

export interface ChatClientOptions extends ClientOptions {
  /** The variable the key came from, named in a refusal. */
  readonly apiKeyEnv: string;
}

export type SendChat = (role: CallRole, params: ChatParams, options: { stream: boolean }) => Promise<ChatResult>;

type Sdk = typeof import('openai');

export function createChatClient(options: ChatClientOptions): SendChat {
  const pace = callPace(options, options.baseURL ?? 'https://api.openai.com/v1');
  const wire = observedFetch(options.fetch ?? fetch);
  // Loaded by the first call: a command that calls no model never loads the SDK.
  let loading: Promise<{ sdk: Sdk; client: OpenAI }> | null = null;
  const load = () =>
    (loading ??= import('openai').then((sdk) => ({
      sdk,
      // Never the SDK's own reading of OPENAI_BASE_URL: the engine passes the one the config names.
      client: new sdk.default({ ...sdkSettings(options, wire), baseURL: options.baseURL ?? 'https://api.openai.com/v1' }),
    })));
  return async (role, params, { stream }) => {
    const { sdk, client } = await load();
    return pacedCall({
      ...pace,
      role,
      server: 'the model server',
      send: (permit, headers) =>
        wire.run(permit, async () => {
          const completion = (await (stream
            ? client.chat.completions.stream({ ...params, stream: true, stream_options: { include_usage: true } } as never, { headers }).finalChatCompletion()
            : client.chat.completions.create({ ...params, stream: false } as never, { headers }))) as unknown as ChatResult;
          if (!Array.isArray(completion.choices) || completion.choices.length === 0) throw new SyntaxError('a completion with no choices');
          return completion;
        }),
      tokens: (completion) => ({ input: completion.usage?.prompt_tokens ?? 0, output: completion.usage?.completion_tokens ?? 0 }),
      sort: (error) => sortFailure(sdk, error),
      toError: (error, retries) => toError(sdk, role, error, retries, params.model, options.apiKeyEnv),
    });
  };
}

function sortFailure(sdk: Sdk, error: unknown): Failure {
  const hint = error instanceof sdk.APIError ? retryAfterMs(error.headers, systemClock.now().getTime()) : null;
  if (error instanceof sdk.APIError && error.status === 429) return { kind: 'rate_limited', hint };
  if (error instanceof sdk.APIError) {
    const retriable = error instanceof sdk.APIConnectionError || (error.status !== undefined && TRANSIENT(error.status));
    return { kind: 'api', hint, retriable, outage: error instanceof sdk.APIConnectionError || (error.status ?? 0) >= 500 };
  }
  // A body that is not JSON, or the SDK's own error for a stream it cannot follow. Anything else is a bug here.
  return error instanceof SyntaxError || error instanceof sdk.OpenAIError ? { kind: 'malformed' } : { kind: 'bug' };
}

/** Sorts a failed call as the Claude client does: an outage, the user's configuration, or a refused request. */
function toError(sdk: Sdk, role: CallRole, error: unknown, retries: number, model: string, apiKeyEnv: string): Error {
  const miss = error instanceof sdk.APIError ? replayMiss(error.headers) : null;
  if (miss) return miss;
  if (error instanceof sdk.APIConnectionError) return new InfraError(role, `the model server could not be reached after ${retries} retries: ${error.message}`, { cause: error });
  if (error instanceof sdk.APIError) {
    const status = error.status ?? 0;
    const requestId = error.requestID ? ` (request ${error.requestID})` : '';
    const detail = `${status}${requestId}: ${error.message.slice(0, 300)}`;
    if (status === 401 || status === 403) {
      return new AgentdevelError('API_KEY_REJECTED', `the OpenAI-compatible server refused the key in ${apiKeyEnv} for the ${role} (${detail})`, { cause: error });
    }
    if (status === 404) return new AgentdevelError('CONFIG_INVALID', `models.${role}: the model server does not know "openai:${model}" (${detail})`, { cause: error });
    if (TRANSIENT(status)) return new InfraError(role, `the model server answered ${status} after ${retries} retries${requestId}: ${error.message.slice(0, 300)}`, { cause: error });
    if (role === 'agent') return new AgentRequestRejected(`the model server refused the agent's request (${detail})`, { cause: error });
    return new InfraError(role, `the model server refused the ${role}'s request (${detail})`, { cause: error });
  }
  return new InfraError(role, `the model server sent a response that could not be read: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}
