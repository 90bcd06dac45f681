// The curated symptom vocabulary: aliases that make synonyms one label. Kept in git as one
// versioned document (`labels.json` on refs/agentdevel/labels/<bp>, pushed and fetched by
// `agentdevel sync`). An alias never rewrites history: records and earlier decisions keep the
// label they were given; readers see it through the alias (hit rates, reports, the enum the
// synthesizer may target, the taxonomy the critic is shown).
import { LABEL_PATTERN } from './symptoms.ts';
import { z } from './zod.ts';

export const LABELS_SCHEMA = 'agentdevel/labels@1';
export const LABELS_FILE = 'labels.json';

const label = z.string().regex(LABEL_PATTERN, 'a symptom label is snake_case, 2 to 64 characters');

export const labelsDocumentSchema = z.object({
  schema: z.literal(LABELS_SCHEMA),
  aliases: z.array(
    z.object({
      from: label,
      to: label,
      /** Who proposed it: a person (`labels merge`) or the diagnostician (with its evidence). */
      by: z.enum(['person', 'diagnostician']),
      reason: z.string(),
      at: z.string(),
    }),
  ),
});
export type LabelsDocument = z.output<typeof labelsDocumentSchema>;
export type LabelAlias = LabelsDocument['aliases'][number];

/** Each aliased label and the label it now reads as (chains followed to their end). */
export function aliasMap(aliases: readonly LabelAlias[]): Map<string, string> {
  const direct = new Map(aliases.map((a) => [a.from, a.to]));
  const resolved = new Map<string, string>();
  for (const from of direct.keys()) {
    let to = from;
    const seen = new Set<string>();
    while (direct.has(to) && !seen.has(to)) {
      seen.add(to);
      to = direct.get(to) as string;
    }
    if (to !== from) resolved.set(from, to);
  }
  return resolved;
}

/**
 * The aliases a merge of `labels` into `into` adds: every named label other than `into` reads as
 * it. Refused (a message) when it would make a label an alias of itself through a chain.
 */
export function mergeAliases(current: readonly LabelAlias[], labels: readonly string[], into: string, by: LabelAlias['by'], reason: string, at: string): LabelAlias[] | string {
  const map = aliasMap(current);
  const target = map.get(into) ?? into;
  const added: LabelAlias[] = [];
  for (const name of new Set(labels)) {
    if (name === target || map.get(name) === target) continue;
    if (map.has(name)) return `"${name}" already reads as "${map.get(name)}"; merge that label instead`;
    added.push({ from: name, to: target, by, reason, at });
  }
  return added;
}
