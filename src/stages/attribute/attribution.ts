// Which edit of a release candidate caused which flip: a bounded delta debugging over the
// edits. First each edit is reverted alone (a flip that goes back depends on that edit); for
// the flips no single revert explains, each edit is then applied alone on the base (an edit
// that reproduces the flip by itself suffices for it). What is still unexplained needs several
// edits together. Pure: the pipeline runs the variants and hands in their outcomes.
import type { FlipAttribution, FlipDirection } from '../../domain/attribution.ts';
import type { CaseOutcome } from '../../domain/case-summary.ts';
import type { ConfirmationPolicy } from '../gate/confirmation.ts';
import { designCase } from '../gate/confirmation.ts';
import { splitAlpha } from '../gate/significance.ts';

export type { FlipAttribution, FlipDirection } from '../../domain/attribution.ts';

/** Outcomes per variant: variant index (one per edit) → case id → outcome. */
export type VariantOutcomes = ReadonlyMap<number, ReadonlyMap<string, CaseOutcome>>;

const flippedOutcome = (direction: FlipDirection): CaseOutcome => (direction === 'f2p' ? 'pass' : 'fail');
const baseOutcome = (direction: FlipDirection): CaseOutcome => (direction === 'f2p' ? 'fail' : 'pass');

/** Flips no single revert explains: the ones the second pass (each edit alone) looks at. */
export function unexplainedByReverts(flips: ReadonlyArray<{ caseId: string; direction: FlipDirection }>, reverted: VariantOutcomes): string[] {
  return flips.filter((f) => ![...reverted.values()].some((outcomes) => outcomes.get(f.caseId) === baseOutcome(f.direction))).map((f) => f.caseId);
}

export function attributeFlips(input: {
  readonly edits: readonly string[];
  readonly flips: ReadonlyArray<{ caseId: string; direction: FlipDirection }>;
  /** With edit i reverted (all others kept). */
  readonly reverted: VariantOutcomes;
  /** With edit i alone on the base (absent when the second pass did not run). */
  readonly alone: VariantOutcomes;
}): FlipAttribution[] {
  return input.flips.map(({ caseId, direction }) => {
    const undone = input.edits.filter((_, i) => input.reverted.get(i)?.get(caseId) === baseOutcome(direction));
    if (undone.length > 0) return { caseId, direction, edits: undone, evidence: 'reverted' };
    const alone = input.edits.filter((_, i) => input.alone.get(i)?.get(caseId) === flippedOutcome(direction));
    if (alone.length > 0) return { caseId, direction, edits: alone, evidence: 'alone' };
    return { caseId, direction, edits: [], evidence: 'unexplained' };
  });
}

/**
 * Fresh trials per flipped case in a variant run: as many as the gate's confirmation planner
 * gives one case of its family (regressions at 3α/4, fixes at α, the family's level shared
 * evenly by its flips), the larger of the two families present; or the stated override.
 */
export function variantTrials(flips: ReadonlyArray<{ readonly direction: FlipDirection }>, policy: ConfirmationPolicy, override: number | null): number {
  if (override !== null) return override;
  const levels = splitAlpha(policy.alpha);
  let trials = 1;
  for (const direction of ['p2f', 'f2p'] as const) {
    const n = flips.filter((f) => f.direction === direction).length;
    if (n === 0) continue;
    const level = direction === 'p2f' ? levels.regression : levels.fix;
    const { design } = designCase(
      { caseId: direction, direction: direction === 'p2f' ? 'regression' : 'fix', weight: 1, bar: level / n, baseline: { passes: 0, graded: 0 } },
      policy,
    );
    trials = Math.max(trials, design.trialsPerSide);
  }
  return trials;
}

/** The most variant runs (each edit reverted, then each alone) and case-trials attribution may spend. */
export function attributionBound(edits: number, flips: number, trials: number): { runs: number; caseTrials: number } {
  const runs = flips === 0 ? 0 : edits > 1 ? 2 * edits : edits;
  return { runs, caseTrials: runs * flips * trials };
}
