// What a worker keeps warm (checkouts, runtimes) is bounded: past the bound, the least recently
// used idle entry goes. Closing one takes a while (a runtime's spawners, a folder's removal), and
// jobs keep coming meanwhile, so the rules below hold at every await: the entry to evict is picked
// afresh each round (one a job took while an earlier one closed is never closed under it), and it
// leaves the map in the same step it is picked (no job can be handed it once its closing began).

export interface Evictable {
  /** Jobs holding it now: never evicted while above 0. */
  readonly inFlight: number;
  /** When a job last took it (ms). */
  readonly lastUsed: number;
}

/**
 * Evicts idle entries of `kept`, least recently used first, until at most `keep` remain or none
 * is idle. `spare` names entries that stay whatever their age (the one a job is making room for).
 * `close` runs after the entry left the map; one eviction at a time, in order.
 */
export async function evictIdle<K, V extends Evictable>(
  kept: Map<K, V>,
  keep: number,
  close: (key: K, entry: V) => Promise<void>,
  spare: (key: K, entry: V) => boolean = () => false,
): Promise<void> {
  for (;;) {
    if (kept.size <= keep) return;
    let oldest: [K, V] | null = null;
    for (const [key, entry] of kept) {
      if (entry.inFlight > 0 || spare(key, entry)) continue;
      if (!oldest || entry.lastUsed < oldest[1].lastUsed) oldest = [key, entry];
    }
    if (!oldest) return;
    kept.delete(oldest[0]);
    await close(oldest[0], oldest[1]);
  }
}
