// Commit and tag messages. Git keeps them as text, and tools read structure into them: the first
// line is the subject, and "Token: value" lines at the end are trailers (Signed-off-by, Co-authored-by).
// User text (an approver's name, a case id, an intent) therefore stays on its own line's tail:
// line breaks and control characters become spaces, so it can neither add a line nor forge a trailer.

/** One line of user text inside a commit or tag message. */
export function commitText(value: string): string {
  return value
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}
