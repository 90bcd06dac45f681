import { zeroUsage, type Usage } from '../../../domain/ports/model.ts';

/** Simulated token counts (about four characters a token) at zero cost: the mock is free. */
export function mockUsage(...texts: string[]): Usage {
  const input = texts.slice(0, -1).reduce((n, t) => n + Math.ceil(t.length / 4), 0);
  const output = Math.ceil((texts.at(-1) ?? '').length / 4);
  return { ...zeroUsage, inputTokens: input, outputTokens: output };
}
