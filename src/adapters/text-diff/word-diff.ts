// The `diff` package (jsdiff) behind the TextDiff port: the reports highlight where a baseline
// and a candidate output differ. This is the one module that imports it.
import { diffWordsWithSpace } from 'diff';
import type { TextChange, TextDiff } from '../../domain/ports/text-diff.ts';

/**
 * The most word edits a comparison may take before it gives up (null). Outputs are clipped
 * before they reach a report, so this bounds the work of a page, not what a reviewer reads.
 */
const MAX_EDITS = 2_000;

/** Word by word, whitespace and newlines kept as tokens of their own, so both texts rebuild exactly. */
export const wordDiff: TextDiff = (before, after) => {
  const changes = diffWordsWithSpace(before, after, { maxEditLength: MAX_EDITS });
  if (changes === undefined) return null;
  return changes.map((c): TextChange => ({ kind: c.added ? 'added' : c.removed ? 'removed' : 'same', text: c.value }));
};
