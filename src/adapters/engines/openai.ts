import type { Config } from '../../config/schema.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { openaiPriceOf, type ModelEndpoint } from '../../domain/models.ts';
import { sendWithin, type SpendGuard } from '../../domain/budget.ts';
import type { ModelPort, Role } from '../../domain/ports/model.ts';
import type { RoleFacts } from '../../domain/role-facts.ts';
import type { UsageLedger } from './anthropic/adapter.ts';
import { readCassetteFacts, recordingFetch, replayingFetch, writeCassetteFacts } from './anthropic/cassette.ts';
import type { PaceFor } from './anthropic/rate-limits.ts';
import { createChatClient, type SendChat } from './openai/chat-client.ts';
import { createOpenAIEngine } from './openai/engine.ts';
import path from 'node:path';

export type OpenAIEngineFactory = (role: Role, model: string, endpoint: ModelEndpoint | null) => ModelPort;

export interface OpenAIOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Retries and the call's time limit are the same setting for every provider. */
  readonly settings: Config['anthropic'];
  readonly cassette: { readonly mode: 'record' | 'replay'; readonly dir: string } | null;
  readonly ledger: UsageLedger;
  readonly facts: RoleFacts;
  readonly pace?: PaceFor;
  readonly guard?: SpendGuard;
}

const defaultEndpoint: ModelEndpoint = { baseURL: null, apiKeyEnv: 'OPENAI_API_KEY', baseURLEnv: 'OPENAI_BASE_URL', price: null };

/**
 * The OpenAI engine for every role that names "openai:MODEL": one client per server and key
 * (roles may be on different servers). The cassette of these calls is its own folder
 * (`openai/` in the cassette), so a recording keys each request by its provider.
 */
export function openaiEngines(options: OpenAIOptions): OpenAIEngineFactory {
  const clients = new Map<string, SendChat>();
  const replaying = options.cassette?.mode === 'replay';
  const cassetteDir = options.cassette ? path.join(options.cassette.dir, 'openai') : null;
  let facts = options.facts;
  let cassetteFetch: typeof fetch | undefined;
  const clientFor = (role: Role, endpoint: ModelEndpoint): SendChat => {
    const apiKey = options.env[endpoint.apiKeyEnv] ?? (replaying ? 'replay-without-a-key' : undefined);
    if (!apiKey) throw new AgentdevelError('API_KEY_MISSING', `models.${role} runs on an OpenAI-compatible server but ${endpoint.apiKeyEnv} is not set`);
    const baseURL = replaying ? 'http://replay.invalid/v1' : (endpoint.baseURL ?? options.env[endpoint.baseURLEnv] ?? null);
    const id = `${endpoint.apiKeyEnv}\n${baseURL ?? ''}`;
    const known = clients.get(id);
    if (known) return known;
    if (cassetteDir && !cassetteFetch) {
      if (replaying) facts = readCassetteFacts(cassetteDir) ?? facts;
      else writeCassetteFacts(cassetteDir, facts);
      cassetteFetch = replaying ? replayingFetch(cassetteDir) : recordingFetch(cassetteDir);
    }
    const send = createChatClient({
      apiKey,
      apiKeyEnv: endpoint.apiKeyEnv,
      baseURL,
      maxRetries: options.settings.maxRetries,
      timeoutMs: options.settings.timeoutMs,
      ...(cassetteFetch ? { fetch: cassetteFetch } : {}),
      ...(options.pace && !replaying ? { pace: options.pace } : {}),
    });
    clients.set(id, send);
    return send;
  };
  const guard = replaying ? undefined : options.guard;
  return (role, model, endpoint) => {
    const where = endpoint ?? defaultEndpoint;
    const send = clientFor(role, where);
    const guarded: SendChat = (callRole, params, sendOptions) => sendWithin(guard, callRole, () => send(callRole, params, sendOptions));
    return createOpenAIEngine(guarded, options.ledger, facts, openaiPriceOf(model, where.price));
  };
}
