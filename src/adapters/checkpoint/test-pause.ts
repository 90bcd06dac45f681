// The pause of the test hook (AGENTDEVEL_TEST_PAUSE_AT, read in app/command-options.ts): at its moment the
// command writes a marker file and stops there, so a test can kill it at that exact point.
// It only pauses: it changes nothing the command writes or decides.
import { rename, writeFile } from 'node:fs/promises';
import type { Checkpoint, CheckpointMoment } from '../../domain/ports/checkpoint.ts';

/** A paused command nobody killed gives up after this long (every wait has a bound). */
export const PAUSE_BOUND_MS = 10 * 60_000;

/** A checkpoint that, at `at`, writes `markerFile` ("<moment> <pid>") and then holds the caller until the process is killed. */
export function pauseAt(at: CheckpointMoment, markerFile: string, boundMs = PAUSE_BOUND_MS): Checkpoint {
  let reached = 0;
  return async (moment) => {
    if (moment !== at) return;
    // Written aside and renamed into place: a test that sees the file sees all of it (a worker
    // may reach the moment with several jobs at once, each with its own file aside).
    reached += 1;
    const aside = `${markerFile}.${process.pid}.${reached}.tmp`;
    await writeFile(aside, `${moment} ${process.pid}\n`);
    await rename(aside, markerFile);
    // The pending timer keeps the process alive while it waits to be killed.
    await new Promise<never>((_resolve, reject) => {
      setTimeout(() => reject(new Error(`paused at ${moment} (AGENTDEVEL_TEST_PAUSE_AT) for ${boundMs / 60_000} minutes, and no test stopped the process`)), boundMs);
    });
  };
}
