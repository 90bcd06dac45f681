// Trees and commits written as objects only (no worktree, no index, no ref): a decision's
// documents, and a version made of two others' folders (a release's blueprint in a candidate's
// tree). Only history-writer.ts uses it, through the runner's plumbing (git with standard input).

/** Runs git plumbing with standard input and returns its standard output. */
export type Plumbing = (args: string[], input: string) => Promise<string>;

interface TreeEntry {
  readonly mode: string;
  readonly type: string;
  readonly object: string;
  readonly name: string;
}

/** A tree of these files; a name with "/" goes into subtrees (mktree takes one level at a time). */
export async function documentTree(plumbing: Plumbing, files: ReadonlyArray<{ name: string; content: string }>): Promise<string> {
  const entries: TreeEntry[] = [];
  const folders = new Map<string, Array<{ name: string; content: string }>>();
  for (const file of files) {
    const slash = file.name.indexOf('/');
    if (slash < 0) {
      entries.push({ mode: '100644', type: 'blob', object: (await plumbing(['hash-object', '-w', '--stdin'], file.content)).trim(), name: file.name });
      continue;
    }
    const folder = file.name.slice(0, slash);
    folders.set(folder, [...(folders.get(folder) ?? []), { name: file.name.slice(slash + 1), content: file.content }]);
  }
  for (const [folder, inside] of folders) entries.push({ mode: '040000', type: 'tree', object: await documentTree(plumbing, inside), name: folder });
  return makeTree(plumbing, entries);
}

/**
 * `tree` with the entry at `folder` (a path of names) replaced by the tree `replacement`, or
 * removed when it is null; the folders above it are written anew, everything else is shared.
 */
export async function graftedTree(plumbing: Plumbing, tree: string, folder: readonly string[], replacement: string | null): Promise<string> {
  return (await graftInto(plumbing, tree, folder, replacement)) ?? makeTree(plumbing, []);
}

/** The grafted tree, or null when it would be empty (git keeps no empty folder). */
async function graftInto(plumbing: Plumbing, tree: string | null, folder: readonly string[], replacement: string | null): Promise<string | null> {
  const [name, ...below] = folder;
  if (name === undefined) return replacement;
  const entries = tree === null ? [] : listTree(await plumbing(['ls-tree', '-z', tree], ''));
  const existing = entries.find((e) => e.name === name) ?? null;
  const inner = await graftInto(plumbing, existing?.type === 'tree' ? existing.object : null, below, replacement);
  const kept = entries.filter((e) => e.name !== name);
  const all = inner === null ? kept : [...kept, { mode: '040000', type: 'tree', object: inner, name }];
  return all.length === 0 ? null : makeTree(plumbing, all);
}

function listTree(out: string): TreeEntry[] {
  return out
    .split('\0')
    .map((entry) => /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(entry))
    .flatMap((match) => (match ? [{ mode: match[1] as string, type: match[2] as string, object: match[3] as string, name: match[4] as string }] : []));
}

async function makeTree(plumbing: Plumbing, entries: readonly TreeEntry[]): Promise<string> {
  // -z: names are NUL-terminated, so any name git allows passes through unquoted.
  return (await plumbing(['mktree', '-z'], entries.map((e) => `${e.mode} ${e.type} ${e.object}\t${e.name}\0`).join(''))).trim();
}
