import type { Case } from './case.ts';
import { canonicalJson } from './json.ts';

/** How a split changed between two versions, by case id. */
export interface CaseChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Same id, other content (input or expected). */
  readonly edited: readonly string[];
}

export function caseChanges(before: readonly Case[], after: readonly Case[]): CaseChanges {
  const old = new Map(before.map((c) => [c.id, canonicalJson(c)]));
  const now = new Map(after.map((c) => [c.id, canonicalJson(c)]));
  return {
    added: [...now.keys()].filter((id) => !old.has(id)),
    removed: [...old.keys()].filter((id) => !now.has(id)),
    edited: [...now].filter(([id, text]) => old.has(id) && old.get(id) !== text).map(([id]) => id),
  };
}

/** Whether a case is the same on both sides, so a comparison across the change is fair. */
export function comparable(changes: CaseChanges | null): (caseId: string) => boolean {
  if (changes === null) return () => true;
  const changed = new Set([...changes.added, ...changes.removed, ...changes.edited]);
  return (caseId) => !changed.has(caseId);
}
