// Rewrites the generated reference pages (scripts/reference-docs.ts says which, and from what).
// Run: npx tsx scripts/write-reference.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { referencePages } from './reference-docs.ts';

for (const [file, content] of Object.entries(referencePages())) writeFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), content);
