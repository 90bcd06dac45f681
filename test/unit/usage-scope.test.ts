import { describe, expect, it } from 'vitest';
import { chargedTo, currentScope } from '../../src/pipeline/run/usage-scope.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('usage scopes', () => {
  it('are values bound for the extent of a piece of work: nested scopes add to the outer one, and leave it as it was', async () => {
    expect(currentScope()).toEqual({ iteration: null, runId: null, activity: null });
    await chargedTo({ iteration: 4 }, async () => {
      await chargedTo({ runId: 'run-a' }, async () => {
        await tick(1);
        expect(currentScope()).toEqual({ iteration: 4, runId: 'run-a', activity: null });
      });
      expect(currentScope()).toEqual({ iteration: 4, runId: null, activity: null });
    });
    expect(currentScope()).toEqual({ iteration: null, runId: null, activity: null });
  });

  it('charge two runs in flight at once each to its own run, through awaits and timers', async () => {
    const seen: Array<[string, string | null]> = [];
    const run = (id: string, delays: number[]) =>
      chargedTo({ runId: id }, async () => {
        for (const ms of delays) {
          await tick(ms);
          seen.push([id, currentScope().runId]);
        }
      });
    await chargedTo({ iteration: 2 }, () => Promise.all([run('baseline', [5, 1, 5]), run('candidate', [1, 5, 1])]));
    expect(seen).toHaveLength(6);
    for (const [id, charged] of seen) expect(charged).toBe(id);
  });
});
