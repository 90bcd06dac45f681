// Node 22.8 and later can keep V8's compiled code of the modules a process loads on disk, and
// read it back at the next start instead of compiling them again (the module compile cache).
// The CLI turns it on before it loads its bundle: most of a short command's start-up, and the
// load of bullmq and ioredis on a queue, is compiling the bundle's code. Node 20 has no such
// call; there this does nothing.
//
// The cache is kept in agentdevel's cache folder (`$XDG_CACHE_HOME/agentdevel`, else
// `~/.cache/agentdevel`, where the containment launcher is built: the rule of
// src/adapters/process/cache-folder.ts, repeated here because this runs before the bundle loads), not in Node's default of the
// shared temporary folder: whoever can write the cache decides what code agentdevel runs, so it
// lives in a folder of the user's own, created 0700, and is not used when that folder (or
// agentdevel's above it) belongs to someone else or others may write it. NODE_COMPILE_CACHE
// names another folder (Node then enables it itself), and NODE_DISABLE_COMPILE_CACHE=1 turns
// it off. The cache is an optimization: a folder that cannot be made or written leaves it off,
// silently.
import { lstatSync, mkdirSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';

/** The folder the CLI keeps compiled code in, unless NODE_COMPILE_CACHE names one. */
export function compileCacheDir(env = process.env) {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || homedir(), '.cache');
  return path.join(base, 'agentdevel', 'node-compile-cache');
}

/** A real folder (not a link) of this user's, that no one else may write. */
function ownFolder(folder) {
  const stat = lstatSync(folder);
  return stat.isDirectory() && (process.getuid === undefined || stat.uid === process.getuid()) && (stat.mode & 0o022) === 0;
}

/**
 * Turns the compile cache on where Node has one. Returns the folder in use, or null when it is
 * off (Node 20, turned off, or a folder that cannot be made).
 */
export function enableCompileCache(env = process.env) {
  if (typeof module.enableCompileCache !== 'function' || env.NODE_DISABLE_COMPILE_CACHE) return null;
  // Set: Node enabled it at start, in that folder.
  if (env.NODE_COMPILE_CACHE) return module.getCompileCacheDir?.() ?? null;
  const directory = compileCacheDir(env);
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (![directory, path.dirname(directory)].every(ownFolder)) return null;
  } catch {
    return null;
  }
  const result = module.enableCompileCache(directory);
  return result.directory ?? null;
}
