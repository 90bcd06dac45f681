// The retry loop every model client shares, whatever its SDK. Calls wait their turn with the
// rate limiter (anthropic/rate-limits.ts) and retry here, not in the SDK, with jittered delays:
//   - 429 (rate limited: the server works, we were early) is retried until a deadline;
//   - 5xx, 408, 409, connection errors and timeouts are retried `maxRetries` times;
//   - an answer that cannot be read is asked again twice;
// after that the call throws what the client's `toError` makes of the failure (an InfraError
// for an outage: the case-trial is an infra_error, never a fail).
import { AsyncLocalStorage } from 'node:async_hooks';
import { systemClock } from '../../domain/ports/clock.ts';
import { InfraError, type CallRole } from '../../domain/ports/model.ts';
import { backoffMs, RateLimitWaitExceeded, sharedRateLimiter, type PaceFor, type Permit, type RateLimiter } from './anthropic/rate-limits.ts';

/** A response the SDK could not read (a malformed body): retried here, since the SDKs do not. */
const MALFORMED_RETRIES = 2;

/** Ten minutes of 429s in a row: the limits are not ours to wait out any longer. */
export const RATE_LIMIT_WAIT_MS = 600_000;

/** Statuses worth retrying, as the SDKs retry them: the service, not the request, is at fault. */
export const TRANSIENT = (status: number): boolean => status === 408 || status === 409 || status === 429 || status >= 500;

/** How a client's SDK failure is read. */
export type Failure =
  /** 429: refused for going too fast. */
  | { readonly kind: 'rate_limited'; readonly hint: number | null }
  /** The server answered with an error, or could not be reached. */
  | { readonly kind: 'api'; readonly hint: number | null; readonly retriable: boolean; readonly outage: boolean }
  /** A body that is not JSON, or a stream the SDK cannot follow. */
  | { readonly kind: 'malformed' }
  /** Anything else: a bug here, which propagates as itself (exit 70). */
  | { readonly kind: 'bug' };

/**
 * A fetch that hands every answer's headers (a 429's too, before the SDK turns it into an error)
 * to the limiter of the call it belongs to.
 */
export function observedFetch(wire: typeof fetch): { readonly fetch: typeof fetch; readonly run: <T>(permit: Permit, send: () => Promise<T>) => Promise<T> } {
  const currentCall = new AsyncLocalStorage<Permit>();
  return {
    fetch: async (input, init) => {
      const response = await wire(input, init);
      currentCall.getStore()?.observe(response.headers);
      return response;
    },
    run: (permit, send) => currentCall.run(permit, send),
  };
}

/** What every model client is opened with. */
export interface ClientOptions {
  readonly apiKey: string;
  /** Null: the provider's public API (the Claude SDK reads ANTHROPIC_BASE_URL first). */
  readonly baseURL: string | null;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  /** Lets record/replay sit under the SDK, on the wire. */
  readonly fetch?: typeof fetch;
  /** The pace shared with other calls (default: `pace`'s for this server and key). */
  readonly limiter?: RateLimiter;
  /** Where the pace for a server and key comes from (default: the process's own; with a queue, one shared in Redis). */
  readonly pace?: PaceFor;
  /** How long one call may keep being refused with 429 before it is an infrastructure error. */
  readonly rateLimitWaitMs?: number;
  /** [0, 1): the jitter of retry delays. */
  readonly random?: () => number;
}

/** The pace and retry settings of a client's calls. */
export interface CallPace {
  readonly limiter: RateLimiter;
  readonly random: () => number;
  readonly rateLimitWaitMs: number;
  readonly maxRetries: number;
}

/** `server`: the address the pace is kept for (null: the SDK's default). */
export function callPace(options: ClientOptions, server: string | null): CallPace {
  return {
    limiter: options.limiter ?? (options.pace ?? sharedRateLimiter)(options.apiKey, server),
    random: options.random ?? Math.random,
    rateLimitWaitMs: options.rateLimitWaitMs ?? RATE_LIMIT_WAIT_MS,
    maxRetries: options.maxRetries,
  };
}

/** The SDK client's own settings: no retries of its own (ours are paced and bounded), and our fetch. */
export function sdkSettings(options: ClientOptions, wire: { readonly fetch: typeof fetch }) {
  return { apiKey: options.apiKey, maxRetries: 0, timeout: options.timeoutMs, fetch: wire.fetch };
}

export interface PacedCall<Result> extends CallPace {
  readonly role: CallRole;
  /** Names the server in the error when the rate limits leave no room ("the model API"). */
  readonly server: string;
  /** One exchange, with the SDK's retry header set from the attempt. */
  readonly send: (permit: Permit, headers: Record<string, string>) => Promise<Result>;
  readonly tokens: (result: Result) => { readonly input: number; readonly output: number };
  readonly sort: (error: unknown) => Failure;
  readonly toError: (error: unknown, retries: number) => Error;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function pacedCall<Result>(call: PacedCall<Result>): Promise<Result> {
  const deadline = systemClock.now().getTime() + call.rateLimitWaitMs;
  let failures = 0;
  let malformed = 0;
  for (let attempt = 0; ; attempt += 1) {
    // The role header lets proxies attribute cost to agent, critic, diagnostician or
    // synthesizer; the retry count is the SDK's own header, kept meaningful.
    const headers = { 'x-agentdevel-role': call.role, 'x-stainless-retry-count': String(attempt) };
    let permit: Permit;
    try {
      permit = await call.limiter.acquire(deadline);
    } catch (error) {
      if (error instanceof RateLimitWaitExceeded) throw new InfraError(call.role, `${call.server}'s rate limits left no room for the call for ${Math.round(call.rateLimitWaitMs / 1000)} s (${error.message})`, { cause: error });
      throw error;
    }
    let retryIn: number;
    try {
      const result = await call.send(permit, headers);
      permit.succeeded(call.tokens(result));
      return result;
    } catch (error) {
      const failure = call.sort(error);
      if (failure.kind === 'rate_limited') {
        permit.rateLimited(failure.hint);
        // Refused for going too fast: the server works. Try again until the deadline.
        retryIn = backoffMs(attempt, failure.hint, call.random());
        if (systemClock.now().getTime() + retryIn > deadline) throw call.toError(error, attempt);
      } else {
        // A fault of the server (5xx, 529, no connection, a malformed answer), not a refusal of this request.
        permit.failed(failure.kind === 'api' ? failure.outage : failure.kind === 'malformed');
        if (failure.kind === 'api') {
          if (!failure.retriable || failures >= call.maxRetries) throw call.toError(error, failures);
          retryIn = backoffMs(failures, failure.hint, call.random());
          failures += 1;
        } else {
          if (failure.kind === 'bug') throw error;
          if (malformed >= MALFORMED_RETRIES) throw call.toError(error, malformed);
          retryIn = 0;
          malformed += 1;
        }
      }
    }
    await sleep(retryIn);
  }
}
