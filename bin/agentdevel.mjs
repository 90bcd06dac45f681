#!/usr/bin/env node
// agentdevel is written in TypeScript and runs from source: tsx compiles it on the fly, so
// `npx agentdevel` works right after `npm ci` with no build step to remember.
import { register } from 'tsx/esm/api';

// A reader that goes away (`agentdevel log | head`) ends the output, not the program with a stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
// The command is over. Nothing it started should keep the process alive; if something does (a
// bug), end anyway rather than wait forever: exit hooks still stop any child left running.
setTimeout(() => {
  process.stderr.write('agentdevel: something was still running after the command finished; exiting\n');
  process.exit(process.exitCode);
}, 5000).unref();
