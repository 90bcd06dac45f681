#!/usr/bin/env node
// agentdevel is written in TypeScript. It starts from the prebuilt bundle in dist/ (built by
// `npm ci` / `npm install` through the `prepare` script, and shipped in the package), and falls
// back to compiling the sources on the fly with tsx when the bundle is absent or older than the
// sources (a fresh clone before `npm ci`, or sources edited since): `node bin/agentdevel.mjs`
// always runs what src/ says.
import { readFileSync, statSync } from 'node:fs';

// A reader that goes away (`agentdevel log | head`) ends the output, not the program with a stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const packageRoot = new URL('../', import.meta.url);

/** True when dist/ was built from the source files as they are now (same size and mtime each). */
function bundleIsFresh() {
  let sources;
  try {
    sources = JSON.parse(readFileSync(new URL('dist/sources.json', packageRoot), 'utf8'));
  } catch (error) {
    // No bundle, or one whose build was cut short: compile on the fly.
    if (error.code === 'ENOENT' || error instanceof SyntaxError) return false;
    throw error;
  }
  for (const [file, [size, mtimeMs]] of Object.entries(sources.inputs ?? {})) {
    let info;
    try {
      info = statSync(new URL(file, packageRoot));
    } catch (error) {
      // A source file the bundle was built from is gone: the sources changed.
      if (error.code === 'ENOENT') return false;
      throw error;
    }
    if (info.size !== size || info.mtimeMs !== mtimeMs) return false;
  }
  return Object.keys(sources.inputs ?? {}).length > 0;
}

let main;
if (bundleIsFresh()) {
  ({ main } = await import('../dist/agentdevel.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
// The command is over. Nothing it started should keep the process alive; if something does (a
// bug), end anyway rather than wait forever: exit hooks still stop any child left running.
setTimeout(() => {
  process.stderr.write('agentdevel: something was still running after the command finished; exiting\n');
  process.exit(process.exitCode);
}, 5000).unref();
