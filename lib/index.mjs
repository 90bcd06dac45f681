// agentdevel's library entry point: src/api.ts, from the prebuilt bundle in dist/ when it matches
// the sources, else compiled on the fly by tsx (lib/load-entry.mjs), so importing the package
// needs no build step.
import { loadEntry } from './load-entry.mjs';

const api = await loadEntry('api', 'src/api.ts');

export const { run, gate, compare, iterate } = api;
