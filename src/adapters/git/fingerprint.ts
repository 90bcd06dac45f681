import { createHash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { nullWhenAbsent } from '../../domain/absent.ts';

/** A file's content, or a link's target (as git stores a link); null when the file was deleted. */
async function contentOf(file: string): Promise<Buffer | string | null> {
  const stats = await lstat(file).catch(nullWhenAbsent);
  if (stats === null) return null;
  return stats.isSymbolicLink() ? `link:${await readlink(file)}` : readFile(file);
}

/**
 * A content hash of a folder's files as git would track them (`trackedFiles`, sorted: committed
 * or not, ignored files left out). Equal content gives an equal fingerprint in any checkout, so a
 * version's records are reused wherever they were produced.
 */
export async function folderFingerprint(dir: string, trackedFiles: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of trackedFiles) {
    const content = await contentOf(path.join(dir, file));
    if (content === null) continue;
    hash.update(file).update('\0').update(content).update('\0');
  }
  return hash.digest('hex');
}
