// HTML (report.html, the line's index): element content and quoted attribute values. Pages
// have no scripts (their Content-Security-Policy forbids them), and every attribute is quoted,
// so escaping these five characters is all that user text needs.

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A value as the pages show it: a string as it is, anything else as pretty JSON. */
export function displayText(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : (JSON.stringify(value, null, 2) ?? String(value));
}

/** HTML-escapes text (a non-string value is shown as pretty JSON). */
export function html(value: unknown): string {
  return displayText(value).replace(/\u0000/g, '\uFFFD').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}
