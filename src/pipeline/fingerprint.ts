import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { trackedFiles } from '../git/git.ts';

/**
 * A content hash of a folder as git would track it (committed or not, ignored files left
 * out). Equal content gives an equal fingerprint in any checkout, so a version's records are
 * reused wherever they were produced.
 */
export async function folderFingerprint(dir: string, folder: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await trackedFiles(dir, folder)) {
    const content = await readFile(path.join(dir, file)).catch(() => null);
    if (content === null) continue;
    hash.update(file).update('\0').update(content).update('\0');
  }
  return hash.digest('hex');
}
