import type { Config } from '../../config/schema.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { createClaudeEngine, type UsageLedger } from './anthropic/adapter.ts';
import type { RoleFacts } from '../../domain/role-facts.ts';
import { readCassetteFacts, recordingFetch, replayingFetch, writeCassetteFacts } from './anthropic/cassette.ts';
import { createMessagesClient, type SendMessage } from './anthropic/messages-client.ts';
import type { PaceFor } from './anthropic/rate-limits.ts';
import type { ModelPort } from '../../domain/ports/model.ts';
import { sendWithin, type SpendGuard } from '../../domain/budget.ts';
import type { EngineFactory } from './index.ts';

export type Cassette = { readonly mode: 'record' | 'replay'; readonly dir: string } | null;

export interface ClaudeOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly settings: Config['anthropic'];
  readonly cassette: Cassette;
  readonly ledger: UsageLedger;
  /** The date and runtime every role is told (replaced by the recorded ones under --replay). */
  readonly facts: RoleFacts;
  /** The pace of the calls to an API with a key (default: this process's own; with a queue, one shared by every process on it). */
  readonly pace?: PaceFor;
  /** The command's budget, asked before every request sent (a replay sends none, and spends nothing). */
  readonly guard?: SpendGuard;
}

/**
 * The Claude engine for every role that names a Claude model. One client is shared by all
 * roles. ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are honoured, so a compatible local server
 * can stand in for the API; a replayed cassette needs neither.
 */
export function claudeEngines(options: ClaudeOptions, when: 'at_start' | 'at_first_call' = 'at_start'): EngineFactory & { ready(): void } {
  let send: SendMessage | null = null;
  let facts = options.facts;
  const client = (): SendMessage => {
    if (send) return send;
    const replaying = options.cassette?.mode === 'replay';
    const apiKey = options.env.ANTHROPIC_API_KEY ?? (replaying ? 'replay-without-a-key' : undefined);
    if (!apiKey) throw new AgentdevelError('API_KEY_MISSING', 'a role runs on a Claude model but ANTHROPIC_API_KEY is not set');
    if (options.cassette?.mode === 'replay') facts = readCassetteFacts(options.cassette.dir) ?? facts;
    if (options.cassette?.mode === 'record') writeCassetteFacts(options.cassette.dir, facts);
    const fetchForCassette =
      options.cassette === null ? undefined : options.cassette.mode === 'record' ? recordingFetch(options.cassette.dir) : replayingFetch(options.cassette.dir);
    send = createMessagesClient({
      apiKey,
      baseURL: replaying ? 'http://replay.invalid' : (options.env.ANTHROPIC_BASE_URL ?? null),
      maxRetries: options.settings.maxRetries,
      timeoutMs: options.settings.timeoutMs,
      ...(fetchForCassette ? { fetch: fetchForCassette } : {}),
      // A replay calls no API: its pace stays in this process.
      ...(options.pace && !replaying ? { pace: options.pace } : {}),
    });
    return send;
  };
  const guard = options.cassette?.mode === 'replay' ? undefined : options.guard;
  const engine = () =>
    createClaudeEngine(
      async (role, params, sendOptions) => {
        const send = client();
        return sendWithin(guard, role, () => send(role, params, sendOptions));
      },
      options.ledger,
      facts,
    );
  // At the first call: a command that may need no model (a sealed test split's second
  // `evaluate-test`) asks for the key only when it does call one (or says so through ready()).
  const deferred = (): ModelPort => {
    let port: ModelPort | null = null;
    const open = (): ModelPort => {
      client();
      port ??= engine();
      return port;
    };
    return {
      agentTurn: (request) => open().agentTurn(request),
      criticize: (request) => open().criticize(request),
      writeDiagnosisScript: (request) => open().writeDiagnosisScript(request),
      synthesize: (request) => open().synthesize(request),
      reviewRequirements: (request) => open().reviewRequirements(request),
      judgeHelpfulness: (request) => open().judgeHelpfulness(request),
      writeMember: (request) => open().writeMember(request),
      writeOrchestratorPrompt: (request) => open().writeOrchestratorPrompt(request),
    };
  };
  const factory = () => {
    if (when === 'at_first_call') return deferred();
    client();
    return engine();
  };
  return Object.assign(factory, { ready: () => void client() });
}
