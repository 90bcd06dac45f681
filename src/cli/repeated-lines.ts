// A long-running command's log line that repeats (a worker while Redis is down: every
// reconnection fails the same way, more than once a second) is written once, then counted: the
// count and the line again at most once per window, and the count of the last ones before any
// other line.
import type { Clock } from '../domain/ports/clock.ts';

const WINDOW_MS = 30_000;

export function collapsingRepeats(write: (line: string) => void, clock: Clock, windowMs = WINDOW_MS): (line: string) => void {
  let last: string | null = null;
  let lastAt = 0;
  let repeats = 0;
  const flush = () => {
    if (repeats > 0) write(`(the line above ${repeats} more time${repeats === 1 ? '' : 's'})`);
    repeats = 0;
  };
  return (line) => {
    const now = clock.now().getTime();
    if (line === last && now - lastAt < windowMs) {
      repeats += 1;
      return;
    }
    flush();
    write(line);
    last = line;
    lastAt = now;
  };
}
