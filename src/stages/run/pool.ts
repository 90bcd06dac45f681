/** Runs `work` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapPool<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}

/**
 * Runs `work` over `items` (read lazily, one at a time) with at most `limit` in flight and
 * keeps no results, so a run of any size holds only the items in flight. The first failure
 * stops taking new items and is thrown once the ones in flight have settled.
 */
export async function eachPool<T>(items: Iterable<T>, limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.iterator]();
  let failed: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failed === null) {
      const next = iterator.next();
      if (next.done) return;
      try {
        await work(next.value);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  if (failed !== null) throw (failed as { error: unknown }).error;
}
