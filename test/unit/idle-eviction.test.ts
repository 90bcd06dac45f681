import { describe, expect, it } from 'vitest';
import { evictIdle } from '../../src/adapters/queue/idle-eviction.ts';

interface Entry {
  inFlight: number;
  lastUsed: number;
}

/** Entries a…f, a the least recently used, all idle. */
function six(): Map<string, Entry> {
  return new Map(['a', 'b', 'c', 'd', 'e', 'f'].map((key, i) => [key, { inFlight: 0, lastUsed: i + 1 }]));
}

describe('evicting idle entries (what a worker keeps warm)', () => {
  it('picks afresh after each close: an entry a job took while an earlier one closed stays', async () => {
    const kept = six();
    const closed: string[] = [];
    let letFirstClose = () => {};
    const firstClosing = new Promise<void>((resolve) => (letFirstClose = resolve));
    const eviction = evictIdle(kept, 4, async (key) => {
      // Out of the map before it is closed: no job can be handed it from now on.
      expect(kept.has(key)).toBe(false);
      closed.push(key);
      if (key === 'a') await firstClosing;
    });
    // While `a` closes, a job takes `b`, the next in line when the eviction began.
    await Promise.resolve();
    expect(closed).toEqual(['a']);
    const b = kept.get('b') as Entry;
    b.inFlight = 1;
    b.lastUsed = 100;
    letFirstClose();
    await eviction;
    expect(closed).toEqual(['a', 'c']);
    expect([...kept.keys()].sort()).toEqual(['b', 'd', 'e', 'f']);
  });

  it('never evicts an entry in flight or one spared, even past the bound', async () => {
    const kept = six();
    for (const key of ['a', 'b', 'c']) (kept.get(key) as Entry).inFlight = 1;
    const closed: string[] = [];
    await evictIdle(kept, 1, async (key) => void closed.push(key), (key) => key === 'd');
    expect(closed).toEqual(['e', 'f']);
    expect([...kept.keys()]).toEqual(['a', 'b', 'c', 'd']);
  });

  it('closes one at a time, in order of last use', async () => {
    const kept = six();
    (kept.get('a') as Entry).lastUsed = 50;
    const order: string[] = [];
    let open = 0;
    await evictIdle(kept, 3, async (key) => {
      open += 1;
      expect(open).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1));
      order.push(key);
      open -= 1;
    });
    expect(order).toEqual(['b', 'c', 'd']);
  });

  it('breaks a tie in last use by age in the map: the one kept longest goes first', async () => {
    const kept = new Map([['x', { inFlight: 0, lastUsed: 5 }], ['y', { inFlight: 0, lastUsed: 5 }], ['z', { inFlight: 0, lastUsed: 5 }]]);
    const closed: string[] = [];
    await evictIdle(kept, 1, async (key) => void closed.push(key));
    expect(closed).toEqual(['x', 'y']);
  });
});
