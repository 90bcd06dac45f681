// Model ids and prices live here and only here, so a default changes in one line.
// Claude Sonnet 4.5, the paper's model, reaches end-of-life on 2026-11-30; the default is
// the current Sonnet.

export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const MOCK_MODEL = 'mock';

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
};

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
