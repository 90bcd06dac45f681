// Which edit of a release candidate caused which flip (`agentdevel attribute`, and the gate on a
// rejection when attribution.onRejection is on). The gate's attribution of a rejected RC's
// regressions is committed with the rejection (diagnostics/<bp>/iter-NNN/attribution.json), so
// the synthesizer's next request, read from git, says which edit broke what.
import { parseJsonDocument } from './json-document.ts';
import { z } from './zod.ts';

export const ATTRIBUTION_SCHEMA = 'agentdevel/attribution@1';
export const ATTRIBUTION_FILE = 'attribution.json';

export const flipDirections = ['f2p', 'p2f'] as const;
export type FlipDirection = (typeof flipDirections)[number];

export const flipAttributionSchema = z.object({
  caseId: z.string(),
  direction: z.enum(flipDirections),
  /** The edits (paths) the flip depends on; empty when unexplained. */
  edits: z.array(z.string()),
  /** reverted: undone by reverting the edit alone · alone: reproduced by the edit alone · unexplained: needs several edits together (or is noise). */
  evidence: z.enum(['reverted', 'alone', 'unexplained']),
});
export type FlipAttribution = z.infer<typeof flipAttributionSchema>;

/** What attribution spent, against the bound it stated before its first variant run. */
export const attributionCostSchema = z.object({
  /** Fresh trials per flipped case in each variant run. */
  trials: z.number().int().min(1),
  runs: z.number().int().min(0),
  caseTrials: z.number().int().min(0),
  bound: z.object({ runs: z.number().int().min(0), caseTrials: z.number().int().min(0) }),
});
export type AttributionCost = z.infer<typeof attributionCostSchema>;

export const attributionDocumentSchema = z.object({
  schema: z.literal(ATTRIBUTION_SCHEMA),
  candidate: z.string(),
  base: z.string(),
  edits: z.array(z.string()),
  flips: z.array(flipAttributionSchema),
  cost: attributionCostSchema,
  simulated: z.boolean(),
});
export type AttributionDocument = z.infer<typeof attributionDocumentSchema>;

export function parseAttributionDocument(text: string, file: string): AttributionDocument {
  return parseJsonDocument(text, file, attributionDocumentSchema, 'HISTORY_INVALID');
}
