// Regenerates the JSON Schemas (agentdevel.config.schema.json, blueprint.schema.json,
// task.schema.json) from the zod schemas; a test fails when a committed one is stale.
// Run: npx tsx scripts/write-config-schema.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { shippedJsonSchemas } from '../src/config/json-schema.ts';

for (const [file, content] of Object.entries(shippedJsonSchemas())) {
  writeFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), content);
}
