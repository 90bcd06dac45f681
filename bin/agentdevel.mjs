#!/usr/bin/env node
// agentdevel is written in TypeScript and runs from source: tsx compiles it on the fly, so
// `npx agentdevel` works right after `npm ci` with no build step to remember.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
