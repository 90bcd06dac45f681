// The symptom taxonomy as it stood when a decision was taken, kept in git beside decision.json:
// `releases/<bp>/<vN|rejected/iter-NNN>/taxonomy.json`. The store's taxonomy is a cache of the
// union of these documents (labels only grow), so a clone's critic speaks the same vocabulary.
import { z } from './zod.ts';

export const TAXONOMY_SCHEMA = 'agentdevel/taxonomy@1';
export const TAXONOMY_FILE = 'taxonomy.json';

export const taxonomyDocumentSchema = z.object({
  schema: z.literal(TAXONOMY_SCHEMA),
  labels: z.array(z.object({ label: z.string().min(1), description: z.string() })),
});
export type TaxonomyDocument = z.output<typeof taxonomyDocumentSchema>;
