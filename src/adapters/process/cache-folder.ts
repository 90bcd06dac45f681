// agentdevel's cache folder: `$XDG_CACHE_HOME/agentdevel`, else `~/.cache/agentdevel`. An empty
// XDG_CACHE_HOME counts as unset, as the XDG spec says. What is kept there: the containment
// launcher (containment-launcher.ts), a worker's checkouts (`worker/`, unless --cache names
// another folder), and the CLI's compiled code (lib/compile-cache.mjs reads the same rule before
// any of this is loaded).
import { homedir } from 'node:os';
import path from 'node:path';

export function agentdevelCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || homedir(), '.cache');
  return path.join(base, 'agentdevel');
}
