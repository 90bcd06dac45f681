// What a crashed child said on stderr, kept so its cause is not lost: the error's first line and
// where it happened ("SyntaxError: Unexpected number at agent.mjs:3"), and a bounded tail of
// the stream for the trace. Node prints the location first (file:line, the code, a caret), then
// the error, its stack and "Node.js vX"; Python prints `File "x.py", line N` then the error.
// Callers redact both before anything is stored.

/** At most this many lines, and this many characters, of a stderr tail. */
export const STDERR_TAIL_LINES = 20;
export const STDERR_TAIL_CHARS = 2000;

const ERROR_LINE = /^(?:Uncaught )?(?:[A-Z]\w*(?:Error|Exception)|Error)\b.*$/;
const NODE_LOCATION = /^(?:file:\/\/)?(\/[^\s:]+|[A-Za-z]:\\[^:]+|[\w./-]+\.(?:m?js|cjs|ts|mts)):(\d+)$/;
const STACK_LOCATION = /\(?(?:file:\/\/)?((?:\/|[A-Za-z]:\\)[^\s:()]+):(\d+):\d+\)?$/;
const PYTHON_LOCATION = /^File "([^"]+)", line (\d+)/;

const base = (file: string): string => file.split(/[\\/]/).at(-1) ?? file;

/** The error's first line and its file:line when stderr shows them, else its last meaningful line; null when empty. */
export function stderrCause(stderr: string): string | null {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.includes('ExperimentalWarning') && !l.includes('--trace-warnings') && !/^Node\.js v\d/.test(l));
  if (lines.length === 0) return null;
  const error = lines.find((l) => ERROR_LINE.test(l));
  let where: string | null = null;
  for (const line of lines) {
    const found = NODE_LOCATION.exec(line) ?? PYTHON_LOCATION.exec(line);
    if (found?.[1] && found[2] && !found[1].startsWith('node:')) where = `${base(found[1])}:${found[2]}`;
  }
  if (!where) {
    // A runtime error: the first frame of the stack outside Node's own modules.
    const frame = lines.filter((l) => l.startsWith('at ')).map((l) => STACK_LOCATION.exec(l)).find((m) => m?.[1] && !m[1].includes('node_modules'));
    if (frame?.[1] && frame[2]) where = `${base(frame[1])}:${frame[2]}`;
  }
  const first = (error ?? lines.filter((l) => !l.startsWith('at ')).at(-1) ?? lines.at(-1) ?? '').slice(0, 240);
  return where ? `${first} (at ${where})` : first;
}

/** The last lines of stderr, bounded in lines and characters (null when it is empty). */
export function stderrTail(stderr: string): string | null {
  const lines = stderr.replace(/\s+$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return null;
  let tail = lines.slice(-STDERR_TAIL_LINES).join('\n');
  if (tail.length > STDERR_TAIL_CHARS) tail = `…${tail.slice(-STDERR_TAIL_CHARS)}`;
  return lines.length > STDERR_TAIL_LINES ? `… (${lines.length - STDERR_TAIL_LINES} earlier lines left out)\n${tail}` : tail;
}
