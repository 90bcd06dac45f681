// Regenerates agentdevel.config.schema.json from the zod schema (a test fails when it is stale).
// Run: npx tsx scripts/write-config-schema.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configJsonSchema } from '../src/config/json-schema.ts';

writeFileSync(fileURLToPath(new URL('../agentdevel.config.schema.json', import.meta.url)), configJsonSchema());
