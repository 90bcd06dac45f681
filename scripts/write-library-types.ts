// Rewrites lib/index.d.mts, the library's published types, from src/api.ts (scripts/library-types.ts).
// Run: npx tsx scripts/write-library-types.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { libraryTypes } from './library-types.ts';

writeFileSync(fileURLToPath(new URL('../lib/index.d.mts', import.meta.url)), libraryTypes());
