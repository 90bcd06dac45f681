import { describe, expect, it } from 'vitest';
import { pairedTurns } from '../../src/pipeline/gate/paired-turns.ts';
import type { Side } from '../../src/stages/gate/confirmation.ts';

/** Runs `trials` case-trials a side, each side's pool `pool` wide, and returns the order they started in. */
async function startOrder(options: { capacity: number; pool: number; trials: Record<Side, number>; leader: (pair: number) => Side; failAfter?: Partial<Record<Side, number>> }): Promise<{ order: string[]; maxInFlight: number }> {
  const turns = pairedTurns({ capacity: options.capacity, leader: options.leader });
  const order: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const side = async (mine: Side) => {
    let next = 0;
    const worker = async () => {
      while (next < options.trials[mine]) {
        const trial = next++;
        if (trial === options.failAfter?.[mine]) throw new Error(`${mine} failed`);
        const end = await turns.side(mine).take();
        order.push(`${mine[0]}${trial}`);
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1 + ((trial * 7) % 3)));
        inFlight -= 1;
        end();
      }
    };
    try {
      await Promise.all(Array.from({ length: options.pool }, worker));
    } finally {
      turns.finish(mine);
    }
  };
  await Promise.allSettled([side('baseline'), side('candidate')]);
  return { order, maxInFlight };
}

describe('paired turns', () => {
  it('starts the two sides in pairs, each pair led by its coin, at concurrency 1', async () => {
    const { order } = await startOrder({ capacity: 1, pool: 1, trials: { baseline: 3, candidate: 3 }, leader: (pair) => (pair === 1 ? 'candidate' : 'baseline') });
    expect(order).toEqual(['b0', 'c0', 'c1', 'b1', 'b2', 'c2']);
  });

  it('keeps the pairs together at an odd concurrency, never more in flight than it allows', async () => {
    const { order, maxInFlight } = await startOrder({ capacity: 3, pool: 3, trials: { baseline: 8, candidate: 8 }, leader: () => 'candidate' });
    expect(maxInFlight).toBeLessThanOrEqual(3);
    // The i-th start of one side is next to the i-th of the other.
    expect(order).toEqual(Array.from({ length: 8 }, (_, i) => [`c${i}`, `b${i}`]).flat());
  });

  it('lets one side run on alone once the other has finished or failed', async () => {
    const { order } = await startOrder({ capacity: 1, pool: 1, trials: { baseline: 4, candidate: 4 }, leader: () => 'baseline', failAfter: { baseline: 1 } });
    expect(order).toEqual(['b0', 'c0', 'c1', 'c2', 'c3']);
  });
});
