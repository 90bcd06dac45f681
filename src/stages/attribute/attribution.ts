// Which edit of a release candidate caused which flip: a bounded delta debugging over the
// edits. First each edit is reverted alone (a flip that goes back depends on that edit); for
// the flips no single revert explains, each edit is then applied alone on the base (an edit
// that reproduces the flip by itself suffices for it). What is still unexplained needs several
// edits together. Pure: the pipeline runs the variants and hands in their outcomes.
import type { CaseOutcome } from '../../domain/case-summary.ts';

export type FlipDirection = 'f2p' | 'p2f';

export interface FlipAttribution {
  readonly caseId: string;
  readonly direction: FlipDirection;
  /** The edits (paths) the flip depends on; empty when unexplained. */
  readonly edits: readonly string[];
  /** reverted: undone by reverting the edit alone · alone: reproduced by the edit alone · unexplained: needs several edits together (or is noise). */
  readonly evidence: 'reverted' | 'alone' | 'unexplained';
}

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
