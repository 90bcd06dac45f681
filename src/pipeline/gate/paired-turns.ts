// The two versions' fresh trials of a confirmation round, started as pairs. Turns go to the
// sides in lockstep: the i-th case-trial of one side starts next to the i-th of the other, and
// which of the two starts first is a seeded coin per pair. Both sides run the same cases in the
// same order, so each pair is one case's baseline and candidate trial, and a provider that changes
// at any moment (between two trials, inside a round, at any concurrency) touches both sides alike
// in expectation. At most `capacity` case-trials of the two sides are in flight together, handed
// out in that order, so the pairs stay together at every concurrency, odd ones included.
//
// A side that has finished (all its trials ran, or its run failed) gives up its turns: the other
// side then runs alone, so neither can wait forever on the other.
import { createHash } from 'node:crypto';
import type { CaseTrialTurns } from '../../domain/ports/case-trial-turns.ts';
import type { Side } from '../../stages/gate/confirmation.ts';

export interface PairedTurns {
  /** The turns of one side's runs in this round. */
  side(side: Side): CaseTrialTurns;
  /** The side asks for no more turns in this round. */
  finish(side: Side): void;
}

/** Which side starts pair `pair` first: a coin seeded by `seed` (the same gate draws the same order). */
export function seededLeader(seed: string): (pair: number) => Side {
  return (pair) => ((createHash('sha256').update(`${seed}:${pair}`).digest()[0] as number) & 1 ? 'candidate' : 'baseline');
}

export function pairedTurns(options: { readonly capacity: number; readonly leader: (pair: number) => Side }): PairedTurns {
  const capacity = Math.max(1, options.capacity);
  const started: Record<Side, number> = { baseline: 0, candidate: 0 };
  const waiting: Record<Side, Array<(end: () => void) => void>> = { baseline: [], candidate: [] };
  const finished = new Set<Side>();
  let inFlight = 0;

  /** The side whose case-trial starts next: the one behind, or the pair's coin when level. */
  const nextSide = (): Side | null => {
    if (finished.has('baseline')) return finished.has('candidate') ? null : 'candidate';
    if (finished.has('candidate')) return 'baseline';
    if (started.baseline !== started.candidate) return started.baseline < started.candidate ? 'baseline' : 'candidate';
    return options.leader(started.baseline);
  };

  const pump = (): void => {
    while (inFlight < capacity) {
      const side = nextSide();
      const grant = side === null ? undefined : waiting[side].shift();
      if (side === null || grant === undefined) return;
      started[side] += 1;
      inFlight += 1;
      let ended = false;
      grant(() => {
        if (ended) return;
        ended = true;
        inFlight -= 1;
        pump();
      });
    }
  };

  return {
    side: (side) => ({
      take: () =>
        new Promise<() => void>((resolve) => {
          waiting[side].push(resolve);
          // Handed out after the caller awaits, so turns granted together start in their order.
          queueMicrotask(pump);
        }),
    }),
    finish: (side) => {
      finished.add(side);
      pump();
    },
  };
}
