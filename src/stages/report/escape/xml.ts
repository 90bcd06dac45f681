// XML 1.0 (JUnit). A character outside XML's Char production (most C0 controls, U+FFFE, U+FFFF,
// a lone surrogate) makes a document unparseable even when escaped as a reference, so it is
// written as a visible \u{…} instead. Tab, line feed and carriage return are written as
// references, so they survive in attribute values too (a parser turns them into spaces there).

const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|\p{Cs}/gu;

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

/** Text fit for XML element content and quoted attribute values alike. */
export function xml(value: string): string {
  return value
    .replace(FORBIDDEN, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`)
    .replace(/[&<>"'\t\n\r]/g, (c) => ENTITIES[c] ?? c);
}

/**
 * Names that stay distinct after escaping: two ids that differ only in forbidden characters
 * would otherwise read alike, so a later one gets " (2)", " (3)" … Returns one name per id, in order.
 */
export function distinctNames(ids: readonly string[]): string[] {
  const taken = new Set<string>();
  return ids.map((id) => {
    const base = id.replace(FORBIDDEN, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base} (${n})`;
    taken.add(name);
    return name;
  });
}
