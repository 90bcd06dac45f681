// Whether a symbolic link in a commit's tree leads out of the blueprint folder. Pure: it works
// on the links git records (path and target), so a candidate can be judged before anything of
// it is checked out or run. Resolution follows links within the folder the way the file system
// would, so `a -> b/..` with `b -> .` is seen to leave; any step outside the folder counts, even
// one that would come back.

export interface TreeLink {
  /** Path in the repository, "/"-separated. */
  readonly path: string;
  /** The link's target, as stored. */
  readonly target: string;
}

/** Links followed in a row before a chain is judged a loop (the Linux limit). */
const MAX_HOPS = 40;

function parts(text: string): string[] {
  return text.split('/').filter((part) => part !== '' && part !== '.');
}

function leaves(link: TreeLink, byPath: ReadonlyMap<string, string>, root: readonly string[]): boolean {
  const inside = (stack: readonly string[]) => stack.length >= root.length && root.every((part, i) => stack[i] === part);
  if (link.target.startsWith('/')) return true;
  const stack = parts(link.path).slice(0, -1);
  let queue = parts(link.target);
  let hops = 0;
  while (queue.length > 0) {
    const part = queue.shift() as string;
    if (part === '..') {
      stack.pop();
      if (!inside(stack)) return true;
      continue;
    }
    stack.push(part);
    const target = byPath.get(stack.join('/'));
    if (target === undefined) continue;
    hops += 1;
    if (hops > MAX_HOPS || target.startsWith('/')) return true;
    stack.pop();
    queue = [...parts(target), ...queue];
  }
  return !inside(stack);
}

/** The links of `links` that lead out of `folder` (a repository path such as "blueprints/bp"). */
export function linksLeaving(links: readonly TreeLink[], folder: string): TreeLink[] {
  const root = parts(folder);
  const byPath = new Map(links.map((link) => [parts(link.path).join('/'), link.target]));
  return links.filter((link) => leaves(link, byPath, root));
}
