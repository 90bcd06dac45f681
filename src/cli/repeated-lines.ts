// A long-running command's log line that repeats (a worker while Redis is down: every
// reconnection fails the same way, more than once a second) is written once, then counted: at
// the end of each window the count is written, and the line is written again when it comes
// after that. Any other line first writes the count of the repeats before it.
import type { Clock } from '../domain/ports/clock.ts';

const WINDOW_MS = 30_000;

export interface LogLines {
  /** A line that may repeat: written once per window, its repeats counted. */
  repeating(line: string): void;
  /** A line written as it is (after the count of the repeats before it). */
  once(line: string): void;
}

export function collapsingRepeats(
  write: (line: string) => void,
  clock: Clock,
  windowMs = WINDOW_MS,
  schedule: (run: () => void, ms: number) => void = (run, ms) => setTimeout(run, ms).unref(),
): LogLines {
  let last: string | null = null;
  let lastAt = 0;
  let repeats = 0;
  let scheduled = false;
  const flush = () => {
    if (repeats > 0) write(`(the line above ${repeats} more time${repeats === 1 ? '' : 's'}: ${last ?? ''})`);
    repeats = 0;
  };
  return {
    repeating: (line) => {
      const now = clock.now().getTime();
      if (line === last && now - lastAt < windowMs) {
        repeats += 1;
        if (!scheduled) {
          scheduled = true;
          // The window's count, even when nothing else comes after it.
          schedule(() => {
            scheduled = false;
            flush();
            last = null;
          }, lastAt + windowMs - now);
        }
        return;
      }
      flush();
      write(line);
      last = line;
      lastAt = now;
    },
    once: (line) => {
      flush();
      last = null;
      write(line);
    },
  };
}
