// How the gate's checks say counts, shares and case lists (one wording for every policy).

export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;
export const listed = (ids: readonly string[], most = 10): string =>
  ids.length === 0 ? '' : `: ${ids.slice(0, most).join(', ')}${ids.length > most ? ', …' : ''}`;
