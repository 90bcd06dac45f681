#!/usr/bin/env node
// agentdevel is written in TypeScript. It starts from the prebuilt bundle in dist/ (built by
// `npm ci` / `npm install` / `npm pack` through the `prepare` script, and shipped in the package),
// and falls back to compiling the sources on the fly with tsx when the bundle is absent or was
// built from other sources (lib/load-entry.mjs): `node bin/agentdevel.mjs` always runs what
// src/ says, on a fresh clone too.
import { loadEntry } from '../lib/load-entry.mjs';

// A reader that goes away (`agentdevel log | head`) ends the output, not the program with a stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const { main } = await loadEntry('agentdevel', 'src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
// The command is over. Nothing it started should keep the process alive; if something does (a
// bug), end anyway rather than wait forever: exit hooks still stop any child left running.
setTimeout(() => {
  process.stderr.write('agentdevel: something was still running after the command finished; exiting\n');
  process.exit(process.exitCode);
}, 5000).unref();
