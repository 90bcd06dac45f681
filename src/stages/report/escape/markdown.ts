// Markdown as GitHub renders it (report.md, CHANGELOG.md, the pull request summary): CommonMark
// plus GitHub's tables, with raw HTML allowed, and mentions (@name) and issue links (#12) found
// in the rendered text. Every piece of text that did not come from agentdevel itself (case ids,
// refs, branch names, approver names, outputs, reasons) goes through one of these functions, so
// it shows as the characters it is and never as markup, HTML, a table cell break or a ping.

/** Every line ending CommonMark knows, plus the ones that look like one in a browser. */
const LINE_BREAKS = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g;
/**
 * The characters that can start markup inside a line, in CommonMark or in GitHub's additions:
 * emphasis and strikethrough, code, links and images, HTML and entities, table cells, math, and
 * the mention and issue signs. Other punctuation is inert inside a line and stays as it is, so
 * the raw markdown reads like the text ("Gate: feature-x (1a2b)", not "Gate\: feature\-x \(1a2b\)").
 */
const INLINE_MARKUP = /[\\`*_[\]<>&|~!$#@]/g;
/** Line-start markup (headings, quotes, list items, setext and thematic breaks), for text that begins a line. */
const LINE_START_MARKUP = /^[-+=>#]|(?<=^\d{1,9})[.)]/;
/** GitHub turns `:name:` into an emoji, and `https://…` and `www.…` into links: break those. */
const AUTOLINK_OR_EMOJI = /:(?=\/\/|[a-z0-9_+-]+:)|(?<=\bwww)\./gi;
/** GitHub links "@name" and "#12" in rendered text, whatever the escaping: a word joiner after the sign breaks the match. */
const WORD_JOINER = '\u2060';

/** CommonMark replaces U+0000 by U+FFFD; doing it here keeps what is shown and what is escaped the same. */
const noNul = (text: string): string => text.replace(/\u0000/g, '\uFFFD');

/**
 * Text inside a paragraph, a list item or a table cell, shown literally: one line (whitespace
 * runs collapse to one space), every character that could start markup escaped (no emphasis,
 * link, entity, autolink, emoji, HTML or, at the start of a line, block can start), and mentions
 * and issue links broken.
 */
export function mdText(value: string): string {
  return noNul(value)
    .replace(LINE_BREAKS, ' ')
    .replace(/[\t ]+/g, ' ')
    .trim()
    .replace(INLINE_MARKUP, (c) => `\\${c}`)
    .replace(AUTOLINK_OR_EMOJI, (c) => `\\${c}`)
    .replace(LINE_START_MARKUP, (c) => `\\${c}`)
    .replace(/\\([@#])/g, `\\$1${WORD_JOINER}`);
}

/**
 * An inline code span (ids, refs, branch names): literal on one line. `table` escapes the pipe,
 * which GitHub's tables split on even inside code spans (it shows as a plain pipe).
 */
export function mdCode(value: string, options: { readonly table?: boolean } = {}): string {
  let content = noNul(value).replace(LINE_BREAKS, ' ');
  if (content === '') return '`\u00a0`';
  if (options.table) content = content.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  // One leading and one trailing space are stripped when both are there: pad when the content
  // starts or ends with a backtick or a space, so what remains is the content itself.
  const pad = /^[` ]|[` ]$/.test(content) && content.trim() !== '' ? ' ' : '';
  return `${fence}${pad}${content}${pad}${fence}`;
}

/** A fenced code block (outputs, diffs): literal, whatever backticks or tildes it holds. */
export function mdCodeBlock(value: string, info = ''): string {
  const content = noNul(value).replace(/\r\n?/g, '\n');
  const longest = Math.max(0, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${mdText(info).replace(/`/g, '')}\n${content}${content.endsWith('\n') || content === '' ? '' : '\n'}${fence}`;
}

/** A table row from cells already rendered as markdown (by mdText, or mdCode with `table`). */
export function mdRow(cells: readonly string[]): string {
  return `| ${cells.map((c) => (c === '' ? ' ' : c)).join(' | ')} |`;
}
