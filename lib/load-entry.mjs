// Loads one of agentdevel's entry points (the CLI, the library) from the prebuilt bundle in dist/
// when it was built from the sources as they are now, and otherwise from the TypeScript sources,
// compiled on the fly by tsx (a fresh clone before `npm ci`, sources edited since the build, a
// bundle whose build failed): agentdevel always runs what src/ says.
//
// "As they are now" is decided by content, not by modification times: a git checkout or a copy
// touches every file without changing one, and must not cost the bundle. The build writes
// dist/sources.json: the files it read and one SHA-256 over their paths and contents. Hashing
// them is a few milliseconds, far below what compiling them would cost.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const packageRoot = new URL('../', import.meta.url);

/** The digest the build script writes, over `files` (paths relative to the package root). */
export function sourcesDigest(files, read = (file) => readFileSync(new URL(file, packageRoot))) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\0`).update(read(file)).update('\0');
  return hash.digest('hex');
}

/** True when dist/ was built from the source files as they are now. */
export function bundleIsFresh() {
  let sources;
  try {
    sources = JSON.parse(readFileSync(new URL('dist/sources.json', packageRoot), 'utf8'));
  } catch (error) {
    // No bundle, or one whose build was cut short: compile on the fly.
    if (error.code === 'ENOENT' || error instanceof SyntaxError) return false;
    throw error;
  }
  if (!Array.isArray(sources.files) || sources.files.length === 0 || typeof sources.digest !== 'string') return false;
  try {
    return sourcesDigest(sources.files) === sources.digest;
  } catch (error) {
    // A source file the bundle was built from is gone: the sources changed.
    if (error.code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * The module of entry point `name` (dist/NAME.js), or of its source `sourcePath` (relative to
 * the package root) when the bundle is stale.
 */
export async function loadEntry(name, sourcePath) {
  if (bundleIsFresh()) return import(new URL(`dist/${name}.js`, packageRoot).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL(sourcePath, packageRoot).href);
}
