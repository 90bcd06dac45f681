/**
 * For `.catch` on a file read: a file that is not there is absent (null); any other failure is
 * a failure and propagates. (Absent and failed are different outcomes.)
 */
export function nullWhenAbsent(error: unknown): null {
  if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') return null;
  throw error;
}
