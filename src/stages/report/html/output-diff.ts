// A case's baseline and candidate outputs side by side, with what differs highlighted: what only
// the baseline said is marked removed (<del>) on its side, what only the candidate says is marked
// added (<ins>) on its side. The comparison comes through the TextDiff port (a diff library).
import type { TextChange, TextDiff } from '../../../domain/ports/text-diff.ts';
import { displayText } from '../escape/html.ts';
import { esc, pre } from './escape.ts';

export interface OutputsHtml {
  readonly baseline: string;
  readonly candidate: string;
}

/** An output as its <pre> shows it: no output at all is a dash. */
const shown = (value: unknown): string => (value === null || value === undefined ? '—' : displayText(value));

/**
 * The two outputs' HTML. A side that did not run (undefined), identical outputs, and outputs too
 * different to compare in bounded work are shown as they are, without highlighting.
 */
export function outputsSideBySide(baseline: unknown, candidate: unknown, textDiff: TextDiff, sides: { readonly baseline: boolean; readonly candidate: boolean }): OutputsHtml {
  const plain = { baseline: pre(baseline, 'output'), candidate: pre(candidate, 'output') };
  if (!sides.baseline || !sides.candidate) return plain;
  const [before, after] = [shown(baseline), shown(candidate)];
  if (before === after) return plain;
  const changes = textDiff(before, after);
  if (changes === null) return plain;
  const side = (keep: 'removed' | 'added', tag: 'del' | 'ins') =>
    `<pre class="output diff-text">${runs(changes.filter((c) => c.kind === 'same' || c.kind === keep))
      .map((run) => (run.changed ? `<${tag}>${esc(run.text)}</${tag}>` : esc(run.text)))
      .join('')}</pre>`;
  return { baseline: side('removed', 'del'), candidate: side('added', 'ins') };
}

/**
 * One side's text as runs to mark or not. A space that both sides share between two changed words
 * belongs to the change, so a changed phrase is marked as one run rather than word by word.
 */
function runs(changes: readonly TextChange[]): Array<{ changed: boolean; text: string }> {
  const out: Array<{ changed: boolean; text: string }> = [];
  changes.forEach((c, i) => {
    const between = c.kind === 'same' && /^[ \t]+$/.test(c.text) && changes[i - 1]?.kind !== 'same' && changes[i + 1] !== undefined && changes[i + 1]?.kind !== 'same';
    const changed = c.kind !== 'same' || between;
    const last = out.at(-1);
    if (last && last.changed === changed) last.text += c.text;
    else out.push({ changed, text: c.text });
  });
  return out;
}
