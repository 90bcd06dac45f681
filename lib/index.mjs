// agentdevel's library entry point. agentdevel runs from its TypeScript source: tsx compiles it
// on the fly (as bin/agentdevel.mjs does), so importing the package needs no build step.
import { register } from 'tsx/esm/api';

register();
const api = await import('../src/api.ts');

export const { run, gate, compare, iterate } = api;
