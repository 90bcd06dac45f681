/** One run of text in a comparison of two texts: in both, only in the first (removed), or only in the second (added). */
export interface TextChange {
  readonly kind: 'same' | 'removed' | 'added';
  readonly text: string;
}

/**
 * Compares two texts word by word, keeping whitespace: the `same` and `removed` runs rebuild the
 * first text in order, the `same` and `added` runs the second. Null when the texts differ too
 * much to compare in bounded work (the reports then show them without highlighting).
 */
export type TextDiff = (before: string, after: string) => readonly TextChange[] | null;
