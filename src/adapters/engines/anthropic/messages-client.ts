// The one module that imports @anthropic-ai/sdk (house rule 6). It sends one Messages API
// request for one role and returns the plain response. Calls wait their turn with the process's
// rate limiter (rate-limits.ts) and retry here, not in the SDK, with jittered delays:
//   - 429 (rate limited: the API works, we were early) is retried for up to RATE_LIMIT_WAIT_MS;
//   - 529, other 5xx, 408, 409, connection errors and timeouts are retried `maxRetries` times;
// after that the call throws InfraError: the API is down, the case-trial is an infra_error.
import { AsyncLocalStorage } from 'node:async_hooks';
import type Anthropic from '@anthropic-ai/sdk';
import { AgentdevelError } from '../../../domain/errors.ts';
import { AgentRequestRejected, InfraError, type CallRole } from '../../../domain/ports/model.ts';
import { replayMiss } from './cassette.ts';
import { backoffMs, RateLimitWaitExceeded, retryAfterMs, sharedRateLimiter, type PaceFor, type Permit, type RateLimiter } from './rate-limits.ts';
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

export interface MessagesClientOptions {
  readonly apiKey: string;
  /** Null: the SDK's default (ANTHROPIC_BASE_URL, else the public API). */
  readonly baseURL: string | null;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  /** Lets record/replay sit under the SDK, on the wire. */
  readonly fetch?: typeof fetch;
  /** The pace shared with other calls (default: `pace`'s for this API and key). */
  readonly limiter?: RateLimiter;
  /** Where the pace for an API and key comes from (default: the process's own; with a queue, one shared in Redis). */
  readonly pace?: PaceFor;
  /** How long one call may keep being refused with 429 before it is an infrastructure error. */
  readonly rateLimitWaitMs?: number;
  /** [0, 1): the jitter of retry delays. */
  readonly random?: () => number;
}

export type SendMessage = (role: CallRole, params: MessageParams, options: { stream: boolean }) => Promise<MessageResult>;

/** A response the SDK could not read (a malformed body): retried here, since the SDK does not. */
const MALFORMED_RETRIES = 2;

/** Ten minutes of 429s in a row: the limits are not ours to wait out any longer. */
export const RATE_LIMIT_WAIT_MS = 600_000;

type Sdk = typeof import('@anthropic-ai/sdk');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createMessagesClient(options: MessagesClientOptions): SendMessage {
  const limiter = options.limiter ?? (options.pace ?? sharedRateLimiter)(options.apiKey, options.baseURL);
  const random = options.random ?? Math.random;
  const rateLimitWaitMs = options.rateLimitWaitMs ?? RATE_LIMIT_WAIT_MS;
  // The call each HTTP exchange belongs to, so that every answer's rate-limit headers (a 429's
  // too, before the SDK turns it into an error) reach the limiter.
  const currentCall = new AsyncLocalStorage<Permit>();
  const wire = options.fetch ?? fetch;
  const observingFetch: typeof fetch = async (input, init) => {
    const response = await wire(input, init);
    currentCall.getStore()?.observe(response.headers);
    return response;
  };
  // The SDK is imported by the first call: a command that calls no model never loads it.
  let loading: Promise<{ sdk: Sdk; client: Anthropic }> | null = null;
  const load = () =>
    (loading ??= import('@anthropic-ai/sdk').then((sdk) => ({
      sdk,
      client: new sdk.default({
        apiKey: options.apiKey,
        ...(options.baseURL ? { baseURL: options.baseURL } : {}),
        // Retries are ours: paced, jittered, and bounded as described above.
        maxRetries: 0,
        timeout: options.timeoutMs,
        fetch: observingFetch,
      }),
    })));
  return async (role, params, { stream }) => {
    const { sdk, client } = await load();
    const { APIError, APIConnectionError } = sdk;
    const deadline = systemClock.now().getTime() + rateLimitWaitMs;
    let failures = 0;
    let malformed = 0;
    for (let attempt = 0; ; attempt += 1) {
      // The role header lets proxies attribute cost to agent, critic, diagnostician or
      // synthesizer; the retry count is the SDK's own header, kept meaningful.
      const requestOptions = { headers: { 'x-agentdevel-role': role, 'x-stainless-retry-count': String(attempt) } };
      let permit: Permit;
      try {
        permit = await limiter.acquire(deadline);
      } catch (error) {
        if (error instanceof RateLimitWaitExceeded) throw new InfraError(role, `the model API's rate limits left no room for the call for ${Math.round(rateLimitWaitMs / 1000)} s (${error.message})`, { cause: error });
        throw error;
      }
      let retryIn: number;
      try {
        const message = (await currentCall.run(permit, () =>
          stream ? client.messages.stream(params as never, requestOptions).finalMessage() : client.messages.create({ ...params, stream: false } as never, requestOptions),
        )) as unknown as MessageResult;
        permit.succeeded({ input: message.usage.input_tokens + (message.usage.cache_creation_input_tokens ?? 0), output: message.usage.output_tokens });
        return message;
      } catch (error) {
        const hint = error instanceof APIError ? retryAfterMs(error.headers, systemClock.now().getTime()) : null;
        if (error instanceof APIError && error.status === 429) {
          permit.rateLimited(hint);
          // Refused for going too fast: the API works. Try again until the deadline.
          retryIn = backoffMs(attempt, hint, random());
          if (systemClock.now().getTime() + retryIn > deadline) throw toInfraError(sdk, role, error, attempt, params.model);
        } else {
          // A fault of the API (5xx, 529, no connection, a malformed answer), not a refusal of this request.
          permit.failed(error instanceof APIConnectionError || (error instanceof APIError ? (error.status ?? 0) >= 500 : isMalformedResponse(sdk, error)));
          if (error instanceof APIError || error instanceof APIConnectionError) {
            // The API answered with an error, or could not be reached.
            if (!retriable(sdk, error) || failures >= options.maxRetries) throw toInfraError(sdk, role, error, failures, params.model);
            retryIn = backoffMs(failures, hint, random());
            failures += 1;
          } else {
            // A body that is not JSON (SyntaxError) or a stream the SDK cannot follow (its base
            // AnthropicError) is a malformed response: try again. Anything else is a bug here
            // and propagates as itself (exit 70), never as an infrastructure error.
            if (!isMalformedResponse(sdk, error)) throw error;
            if (malformed >= MALFORMED_RETRIES) throw toInfraError(sdk, role, error, malformed, params.model);
            retryIn = 0;
            malformed += 1;
          }
        }
      }
      await sleep(retryIn);
    }
  };
}

/** An error worth another try: no answer at all, or a status where the service, not the request, is at fault. */
function retriable(sdk: Sdk, error: InstanceType<Sdk['APIError']>): boolean {
  if (error instanceof sdk.APIConnectionError) return true;
  return error.status !== undefined && TRANSIENT(error.status);
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
