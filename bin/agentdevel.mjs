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
