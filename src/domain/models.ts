// Model ids and prices live here and only here, so a default changes in one line.
// Claude Sonnet 4.5, the paper's model, reaches end-of-life on 2026-11-30; the default is
// the current Sonnet.

export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const MOCK_MODEL = 'mock';
/** A role on an OpenAI-compatible server is named "openai:MODEL" wherever models are named (traces, the ledger). */
export const OPENAI_PROVIDER = 'openai';

export type Provider = 'anthropic' | 'openai';

/** Where a role on an OpenAI-compatible server is sent, and what its calls cost (null: the price table's, if any). */
export interface ModelEndpoint {
  readonly baseURL: string | null;
  readonly apiKeyEnv: string;
  readonly baseURLEnv: string;
  readonly price: ModelPrice | null;
}

/** The models of the roles, normalized: one name per role, and the endpoint of each role written as an object. */
export interface ConfiguredModels {
  readonly agent: string;
  readonly critic: string;
  readonly diagnostician: string;
  readonly synthesizer: string;
  readonly judge: string;
  readonly writer: string;
  readonly endpoints?: Readonly<Partial<Record<'agent' | 'critic' | 'diagnostician' | 'synthesizer' | 'judge' | 'writer', ModelEndpoint>>>;
}

/** The provider a configured model name is served by (mock is no provider). */
export function providerOf(model: string): Provider | null {
  if (model.startsWith(`${OPENAI_PROVIDER}:`)) return 'openai';
  return isClaudeModel(model) ? 'anthropic' : null;
}

/** The model name the provider knows ("openai:gpt-5.1" is sent as "gpt-5.1"). */
export function providerModel(model: string): string {
  return model.startsWith(`${OPENAI_PROVIDER}:`) ? model.slice(OPENAI_PROVIDER.length + 1) : model;
}

/** USD per million tokens. Cache writes are priced at 1.25x input and reads at 0.1x, as Anthropic bills them. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

const prices: Readonly<Record<string, ModelPrice>> = {
  'claude-sonnet-5-5': { input: 3, output: 15 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  // OpenAI's list prices (standard tier), by the name the ledger records.
  'openai:gpt-5.1': { input: 1.25, output: 10 },
  'openai:gpt-5': { input: 1.25, output: 10 },
  'openai:gpt-5-mini': { input: 0.25, output: 2 },
  'openai:gpt-5-nano': { input: 0.05, output: 0.4 },
  'openai:gpt-4.1': { input: 2, output: 8 },
  'openai:gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'openai:gpt-4o': { input: 2.5, output: 10 },
  'openai:gpt-4o-mini': { input: 0.15, output: 0.6 },
};

/**
 * The price of a model on an OpenAI-compatible server: the config's, else the table's, else null:
 * a local model's price is not known, and its calls are counted as such, never as free.
 */
export function openaiPriceOf(model: string, configured: ModelPrice | null): ModelPrice | null {
  return configured ?? prices[model] ?? null;
}

/** USD cost of one call at a known price (cache reads at the provider's discount). */
export function costAt(price: ModelPrice, tokens: TokenCounts, cacheReadShare = 0.1): number {
  const perToken = (n: number, usdPerMillion: number) => (n * usdPerMillion) / 1_000_000;
  return perToken(tokens.inputTokens, price.input) + perToken(tokens.outputTokens, price.output) + perToken(tokens.cacheWriteTokens, price.input * 1.25) + perToken(tokens.cacheReadTokens, price.input * cacheReadShare);
}

/** Unknown Claude ids are priced like the default Sonnet, so cost is never silently zero. */
export function priceOf(model: string): ModelPrice {
  return prices[model] ?? prices[DEFAULT_MODEL] ?? { input: 3, output: 15 };
}

export function isClaudeModel(model: string): boolean {
  return /^claude-[a-z0-9][a-z0-9.-]*$/.test(model);
}

export interface TokenCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
}

/** USD cost of one call: cache writes at 1.25x the input price, cache reads at 0.1x. */
export function costOf(model: string, tokens: TokenCounts): number {
  const price = priceOf(model);
  const perToken = (n: number, usdPerMillion: number) => (n * usdPerMillion) / 1_000_000;
  return (
    perToken(tokens.inputTokens, price.input) +
    perToken(tokens.outputTokens, price.output) +
    perToken(tokens.cacheWriteTokens, price.input * 1.25) +
    perToken(tokens.cacheReadTokens, price.input * 0.1)
  );
}
