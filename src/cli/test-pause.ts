// The pause of the test hook (AGENTDEVEL_TEST_PAUSE_AT, read in io.ts): at its moment the
// command writes a marker file and stops there, so a test can kill it at that exact point.
// It only pauses: it changes nothing the command writes or decides.
import { writeFile } from 'node:fs/promises';
import type { Checkpoint, CheckpointMoment } from '../domain/ports/checkpoint.ts';

/** A paused command nobody killed gives up after this long (every wait has a bound). */
export const PAUSE_BOUND_MS = 10 * 60_000;

/** A checkpoint that, at `at`, writes `markerFile` ("<moment> <pid>") and then holds the caller until the process is killed. */
export function pauseAt(at: CheckpointMoment, markerFile: string): Checkpoint {
  return async (moment) => {
    if (moment !== at) return;
    await writeFile(markerFile, `${moment} ${process.pid}\n`);
    // The pending timer keeps the process alive while it waits to be killed.
    await new Promise<never>((_resolve, reject) => {
      setTimeout(() => reject(new Error(`paused at ${moment} (AGENTDEVEL_TEST_PAUSE_AT) for ${PAUSE_BOUND_MS / 60_000} minutes, and no test stopped the process`)), PAUSE_BOUND_MS);
    });
  };
}
