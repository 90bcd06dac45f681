// The git tree id of a folder as it is on disk, computed in this process (no git process): a
// worker's cached checkout is clean exactly when it still has the id it had right after its
// checkout (the snapshot's tree, unless git converted files as it wrote them), whatever an agent
// wrote, deleted or chmodded in it since.
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';

type Format = 'sha1' | 'sha256';

function objectId(format: Format, kind: 'blob' | 'tree', content: Buffer): Buffer {
  return createHash(format).update(`${kind} ${content.length}\0`).update(content).digest();
}

/** The id of the tree of `dir`; an empty folder (which git never checks out) gives an entry of its own, so it differs too. */
async function treeOf(dir: string, format: Format): Promise<Buffer> {
  const entries: Array<{ readonly sortKey: string; readonly line: Buffer }> = [];
  for (const name of await readdir(dir)) {
    const file = path.join(dir, name);
    const stats = await lstat(file);
    let mode: string;
    let id: Buffer;
    if (stats.isDirectory()) {
      mode = '40000';
      id = await treeOf(file, format);
    } else if (stats.isSymbolicLink()) {
      mode = '120000';
      id = objectId(format, 'blob', Buffer.from(await readlink(file)));
    } else if (stats.isFile()) {
      mode = stats.mode & 0o100 ? '100755' : '100644';
      id = objectId(format, 'blob', await readFile(file));
    } else {
      // A socket or a fifo: nothing git checks out.
      mode = 'other';
      id = Buffer.alloc(0);
    }
    // Git orders a tree's entries by name, a folder's name as if it ended with '/'.
    entries.push({ sortKey: mode === '40000' ? `${name}/` : name, line: Buffer.concat([Buffer.from(`${mode} ${name}\0`), id]) });
  }
  entries.sort((a, b) => Buffer.compare(Buffer.from(a.sortKey), Buffer.from(b.sortKey)));
  return objectId(format, 'tree', Buffer.concat(entries.map((e) => e.line)));
}

/** Whether `dir` holds exactly the tree `tree` (a 40- or 64-digit id); false when it is missing. */
export async function holdsTree(dir: string, tree: string): Promise<boolean> {
  return (await treeIdOf(dir, tree)) === tree;
}

/**
 * The tree id of `dir` as it is on disk, in the object format of `like` (a 40- or 64-digit id);
 * null when it is missing. It differs from the tree git checked out only where git converted
 * files as it wrote them (line endings, `ident`, a filter of `.gitattributes`).
 */
export async function treeIdOf(dir: string, like: string): Promise<string | null> {
  try {
    return (await treeOf(dir, like.length === 64 ? 'sha256' : 'sha1')).toString('hex');
  } catch {
    return null;
  }
}
