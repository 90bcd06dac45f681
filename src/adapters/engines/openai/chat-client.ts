// The one module that imports `openai` (house rule 6). It sends one Chat Completions request
// for one role and returns the plain response. Retries are ours, as the Claude client's are
// (anthropic/messages-client.ts), with the same pace and the same rules:
//   - 429 (rate limited) is waited out, retry-after honoured, for up to RATE_LIMIT_WAIT_MS;
//   - 5xx, 408, 409, connection errors and timeouts are retried `maxRetries` times;
// then the call throws InfraError. A refused key is the user's configuration (exit 2).
import { AsyncLocalStorage } from 'node:async_hooks';
import type OpenAI from 'openai';
import { AgentdevelError } from '../../../domain/errors.ts';
import { AgentRequestRejected, InfraError, type CallRole } from '../../../domain/ports/model.ts';
import { systemClock } from '../../../domain/ports/clock.ts';
import { replayMiss } from '../anthropic/cassette.ts';
import { RATE_LIMIT_WAIT_MS } from '../anthropic/messages-client.ts';
import { backoffMs, RateLimitWaitExceeded, retryAfterMs, sharedRateLimiter, type PaceFor, type Permit, type RateLimiter } from '../anthropic/rate-limits.ts';

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

export interface ChatClientOptions {
  readonly apiKey: string;
  /** Null: the public OpenAI API. */
  readonly baseURL: string | null;
  /** The variable the key came from, named in a refusal. */
  readonly apiKeyEnv: string;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
  readonly pace?: PaceFor;
  readonly limiter?: RateLimiter;
  readonly rateLimitWaitMs?: number;
  readonly random?: () => number;
}

export type SendChat = (role: CallRole, params: ChatParams, options: { stream: boolean }) => Promise<ChatResult>;

type Sdk = typeof import('openai');

const MALFORMED_RETRIES = 2;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const TRANSIENT = (status: number): boolean => status === 408 || status === 409 || status === 429 || status >= 500;

export function createChatClient(options: ChatClientOptions): SendChat {
  const limiter = options.limiter ?? (options.pace ?? sharedRateLimiter)(options.apiKey, options.baseURL ?? 'https://api.openai.com/v1');
  const random = options.random ?? Math.random;
  const rateLimitWaitMs = options.rateLimitWaitMs ?? RATE_LIMIT_WAIT_MS;
  const currentCall = new AsyncLocalStorage<Permit>();
  const wire = options.fetch ?? fetch;
  const observingFetch: typeof fetch = async (input, init) => {
    const response = await wire(input, init);
    currentCall.getStore()?.observe(response.headers);
    return response;
  };
  // Loaded by the first call: a command that calls no model never loads the SDK.
  let loading: Promise<{ sdk: Sdk; client: OpenAI }> | null = null;
  const load = () =>
    (loading ??= import('openai').then((sdk) => ({
      sdk,
      client: new sdk.default({
        apiKey: options.apiKey,
        // Never the SDK's own reading of OPENAI_BASE_URL: the engine passes the one the config names.
        baseURL: options.baseURL ?? 'https://api.openai.com/v1',
        maxRetries: 0,
        timeout: options.timeoutMs,
        fetch: observingFetch,
      }),
    })));
  return async (role, params, { stream }) => {
    const { sdk, client } = await load();
    const deadline = systemClock.now().getTime() + rateLimitWaitMs;
    let failures = 0;
    let malformed = 0;
    for (let attempt = 0; ; attempt += 1) {
      const requestOptions = { headers: { 'x-agentdevel-role': role, 'x-stainless-retry-count': String(attempt) } };
      let permit: Permit;
      try {
        permit = await limiter.acquire(deadline);
      } catch (error) {
        if (error instanceof RateLimitWaitExceeded) throw new InfraError(role, `the model server's rate limits left no room for the call for ${Math.round(rateLimitWaitMs / 1000)} s (${error.message})`, { cause: error });
        throw error;
      }
      let retryIn: number;
      try {
        const completion = (await currentCall.run(permit, () =>
          stream
            ? client.chat.completions.stream({ ...params, stream: true, stream_options: { include_usage: true } } as never, requestOptions).finalChatCompletion()
            : client.chat.completions.create({ ...params, stream: false } as never, requestOptions),
        )) as unknown as ChatResult;
        if (!Array.isArray(completion.choices) || completion.choices.length === 0) throw new SyntaxError('a completion with no choices');
        permit.succeeded({ input: completion.usage?.prompt_tokens ?? 0, output: completion.usage?.completion_tokens ?? 0 });
        return completion;
      } catch (error) {
        const hint = error instanceof sdk.APIError ? retryAfterMs(error.headers, systemClock.now().getTime()) : null;
        if (error instanceof sdk.APIError && error.status === 429) {
          permit.rateLimited(hint);
          retryIn = backoffMs(attempt, hint, random());
          if (systemClock.now().getTime() + retryIn > deadline) throw toError(sdk, role, error, attempt, params.model, options.apiKeyEnv);
        } else {
          const malformedAnswer = error instanceof SyntaxError || (error instanceof sdk.OpenAIError && !(error instanceof sdk.APIError));
          permit.failed(error instanceof sdk.APIConnectionError || (error instanceof sdk.APIError ? (error.status ?? 0) >= 500 : malformedAnswer));
          if (error instanceof sdk.APIError) {
            const retriable = error instanceof sdk.APIConnectionError || (error.status !== undefined && TRANSIENT(error.status));
            if (!retriable || failures >= options.maxRetries) throw toError(sdk, role, error, failures, params.model, options.apiKeyEnv);
            retryIn = backoffMs(failures, hint, random());
            failures += 1;
          } else {
            // Anything but a malformed answer is a bug here, and propagates as itself.
            if (!malformedAnswer) throw error;
            if (malformed >= MALFORMED_RETRIES) throw toError(sdk, role, error, malformed, params.model, options.apiKeyEnv);
            retryIn = 0;
            malformed += 1;
          }
        }
      }
      await sleep(retryIn);
    }
  };
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
