// XML 1.0's Char production, checked strictly over a rendered document: fast-xml-parser's
// validator accepts NUL, U+0001, U+FFFF and lone surrogates, which every conforming parser
// refuses. Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
// Character references (&#N; &#xN;) must name such a character too ("Well-formedness
// constraint: Legal Character").

export function isXmlChar(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
}

const hex = (n: number): string => `U+${n.toString(16).toUpperCase().padStart(4, '0')}`;

/** Every character (or character reference) of `document` outside XML 1.0's Char, with its offset; empty when there is none. */
export function xmlCharViolations(document: string): string[] {
  const found: string[] = [];
  // Walk UTF-16 code units by hand: a lone surrogate must be seen as itself, not skipped.
  for (let i = 0; i < document.length; i += 1) {
    const unit = document.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = document.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i += 1; // A pair: one supplementary character, always a Char.
        continue;
      }
      found.push(`lone high surrogate ${hex(unit)} at ${i}`);
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      found.push(`lone low surrogate ${hex(unit)} at ${i}`);
    } else if (!isXmlChar(unit)) {
      found.push(`${hex(unit)} at ${i}`);
    }
  }
  for (const match of document.matchAll(/&#(x[0-9a-fA-F]+|[0-9]+);/g)) {
    const body = match[1] as string;
    const codePoint = body.startsWith('x') ? Number.parseInt(body.slice(1), 16) : Number.parseInt(body, 10);
    if (!isXmlChar(codePoint)) found.push(`reference ${match[0]} (${hex(codePoint)}) at ${match.index}`);
  }
  return found;
}
