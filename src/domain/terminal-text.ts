// Text from git documents, traces and answers (labels, descriptions, case ids, outputs) reaches
// a terminal as well as HTML and markdown. A terminal obeys control characters: an escape
// sequence in a label could clear the screen, move the cursor over earlier lines, retitle the
// window or hide what follows. So every line agentdevel prints shows them as text, as the
// report escapers do for their formats.

/**
 * C0 controls other than the line feed and the tab (so ESC, CR, BEL, backspace), DEL, C1
 * controls (U+009B is an 8-bit CSI to some terminals), and the bidirectional overrides and
 * isolates, which reorder what is shown.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const shown = (c: string): string => `\\u{${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`;

/** Text for a terminal line: every character a terminal would obey, rather than show, written as `\u{1B}`. */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, shown);
}

/**
 * JSON text for a terminal: JSON.stringify escapes C0 controls but not C1 controls or the bidi
 * overrides; these become `\u009b` escapes, which read back as the same value.
 */
export function terminalJson(json: string): string {
  return json.replace(UNSAFE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
