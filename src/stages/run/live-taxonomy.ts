// Labels the critic coins early in a run reach its later requests. Which labels a request sees
// must not depend on timing, or a replay (at another concurrency, or none) would send other
// requests than the recording: so the case-trials of a run are cut into waves of a fixed size in
// case order, and a critic request of wave k sees the run's starting taxonomy plus every label
// coined in waves before k, in case order. Its call waits until those waves are graded; the
// agents keep running meanwhile.
import type { SymptomEntry } from '../../domain/symptoms.ts';

/** Case-trials a wave holds: fixed, never the concurrency, so every concurrency sends the same requests. */
export const WAVE_SIZE = 8;

export interface LiveTaxonomy {
  /** Resolves when every wave before the one of `position` is graded (or the run was abandoned). */
  ready(position: number): Promise<void>;
  /** The taxonomy the critic request at `position` is sent. */
  taxonomyFor(position: number): SymptomEntry[];
  /** The case-trial at `position` is graded; `coined` is the label its critic gave when new to the run's starting taxonomy. */
  graded(position: number, coined: SymptomEntry | null): void;
  /** The run stopped taking case-trials: nothing waits any longer. */
  abandon(): void;
}

export function liveTaxonomy(start: readonly SymptomEntry[], total: number): LiveTaxonomy {
  const waves = Math.ceil(total / WAVE_SIZE);
  const remaining = Array.from({ length: waves }, (_, k) => Math.min(WAVE_SIZE, total - k * WAVE_SIZE));
  const coined = new Map<number, SymptomEntry>();
  // complete[k]: every wave up to and including k is graded.
  const releases: Array<() => void> = [];
  const complete = Array.from({ length: waves }, (_, k) => new Promise<void>((resolve) => (releases[k] = resolve)));
  let through = -1;
  const advance = () => {
    while (through + 1 < waves && remaining[through + 1] === 0) {
      through += 1;
      releases[through]?.();
    }
  };
  const waveOf = (position: number) => Math.floor(position / WAVE_SIZE);
  return {
    ready: async (position) => {
      const before = waveOf(position) - 1;
      if (before >= 0) await complete[before];
    },
    taxonomyFor: (position) => {
      const known = new Set(start.map((s) => s.label));
      const seen = [...start];
      const limit = waveOf(position) * WAVE_SIZE;
      for (const [at, entry] of [...coined].sort(([a], [b]) => a - b)) {
        if (at >= limit || known.has(entry.label)) continue;
        known.add(entry.label);
        seen.push(entry);
      }
      return seen;
    },
    graded: (position, entry) => {
      if (entry) coined.set(position, entry);
      const wave = waveOf(position);
      if (remaining[wave] !== undefined) remaining[wave] -= 1;
      advance();
    },
    abandon: () => {
      for (const release of releases) release();
    },
  };
}
