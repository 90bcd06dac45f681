export type IterationKind = 'promoted' | 'pending' | 'rejected' | 'no_candidate';

export interface IterationResult {
  readonly iteration: number;
  readonly kind: IterationKind;
  readonly f2p: readonly string[];
  readonly p2f: readonly string[];
  readonly p2fRate: number;
}

export interface StopPolicy {
  readonly maxIterations: number;
  readonly maxConsecutiveRejections: number;
  readonly minF2P: number;
  readonly patience: number;
}

/**
 * The stopping predicate (paper section 2.4): stop when fixes dry up, regressions keep
 * rising, RCs keep being rejected, gains concentrate on cases that keep flipping back and
 * forth, the synthesizer has nothing left, or the iteration budget is spent. Pure.
 */
export function stopReason(history: readonly IterationResult[], policy: StopPolicy, failingCases: number): string | null {
  if (failingCases === 0) return 'every train case passes';
  const last = history.at(-1);
  if (last?.kind === 'no_candidate') return 'the synthesizer had no valid release candidate to propose';
  if (history.length >= policy.maxIterations) return `reached the limit of ${policy.maxIterations} iterations`;

  const tail = history.slice(-policy.maxConsecutiveRejections);
  if (tail.length === policy.maxConsecutiveRejections && tail.every((r) => r.kind !== 'promoted')) {
    return `${policy.maxConsecutiveRejections} release candidates in a row were not promoted`;
  }

  const promoted = history.filter((r) => r.kind === 'promoted');
  const recent = promoted.slice(-policy.patience);
  if (recent.length === policy.patience && recent.every((r) => r.f2p.length < policy.minF2P)) {
    return `fixes dried up: the last ${policy.patience} releases fixed fewer than ${policy.minF2P} case${policy.minF2P === 1 ? '' : 's'} each`;
  }

  const rates = history.slice(-(policy.patience + 1)).map((r) => r.p2fRate);
  if (rates.length === policy.patience + 1 && rates.every((rate, i) => i === 0 || rate > (rates[i - 1] as number)) && (rates.at(-1) ?? 0) > 0) {
    return `the regression rate rose for ${policy.patience} iterations in a row`;
  }

  // Overfitting: the same cases keep being "fixed" again after regressing.
  const fixedBefore = new Set<string>();
  const refixed = new Set<string>();
  for (const result of promoted) {
    for (const id of result.f2p) (fixedBefore.has(id) ? refixed : fixedBefore).add(id);
  }
  if (refixed.size >= policy.patience) {
    return `gains concentrate on ${refixed.size} cases that keep flipping back and forth (overfitting)`;
  }
  return null;
}
