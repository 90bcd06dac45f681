// The curated symptom vocabulary: aliases that make synonyms one label. Kept in git as one
// versioned document (`labels.json` on refs/agentdevel/labels/<bp>, pushed and fetched by
// `agentdevel sync`). An alias never rewrites history: records and earlier decisions keep the
// label they were given; readers see it through the alias (hit rates, reports, the enum the
// synthesizer may target, the taxonomy the critic is shown).
//
// An alias is scoped in time: it takes effect from a point of the loop (`effective`: an
// iteration, at its start or from its synthesis on), so an iteration replayed from before the
// alias was recorded sees the taxonomy as it stood then.
import { AgentdevelError } from './errors.ts';
import { parseJsonDocument } from './json-document.ts';
import { LABEL_PATTERN } from './symptoms.ts';
import { z } from './zod.ts';

export const LABELS_SCHEMA = 'agentdevel/labels@2';
export const LABELS_FILE = 'labels.json';

const label = z.string().regex(LABEL_PATTERN, 'a symptom label is snake_case, 2 to 64 characters');

/** Where in the loop an alias takes effect: from the start of an iteration, or from its synthesis on (a diagnostician's merge). */
export const aliasEffectSchema = z.object({ iteration: z.number().int().min(0), stage: z.enum(['start', 'synthesis']) });
export type AliasEffect = z.output<typeof aliasEffectSchema>;

const aliasFields = {
  from: label,
  to: label,
  /** Who proposed it: a person (`labels merge`) or the diagnostician (with its evidence). */
  by: z.enum(['person', 'diagnostician']),
  reason: z.string(),
  at: z.string(),
};

/** Version 1: no scope (in effect everywhere, as it was read then) and no evidence. */
const labelsDocumentV1Schema = z.object({ schema: z.literal('agentdevel/labels@1'), aliases: z.array(z.object(aliasFields)) });

export const labelsDocumentSchema = z.object({
  schema: z.literal(LABELS_SCHEMA),
  aliases: z.array(
    z.object({
      ...aliasFields,
      /** Case ids that show the labels name one fault (the diagnostician's evidence; empty for a person's merge). */
      evidence: z.array(z.string()).default([]),
      effective: aliasEffectSchema,
    }),
  ),
});
export type LabelsDocument = z.output<typeof labelsDocumentSchema>;
export type LabelAlias = LabelsDocument['aliases'][number];

/** Reads either version: a version 1 alias is in effect from the first iteration on. */
export const anyLabelsDocumentSchema = z.union([labelsDocumentSchema, labelsDocumentV1Schema]).transform(
  (document): LabelsDocument =>
    document.schema === LABELS_SCHEMA ? document : { schema: LABELS_SCHEMA, aliases: document.aliases.map((a) => ({ ...a, evidence: [], effective: { iteration: 0, stage: 'start' as const } })) },
);

const LABELS_SCHEMAS_READ = [LABELS_SCHEMA, 'agentdevel/labels@1'];

/**
 * Reads `labels.json` (`file` names its ref and path). A version this agentdevel does not know
 * is named as such, with the versions it reads, rather than as a shape that failed to match.
 */
export function parseLabelsDocument(text: string, file: string): LabelsDocument {
  const { schema } = parseJsonDocument(text, file, z.object({ schema: z.unknown() }).passthrough(), 'HISTORY_INVALID');
  if (typeof schema !== 'string' || !LABELS_SCHEMAS_READ.includes(schema)) {
    const written = typeof schema === 'string' ? `schema "${schema}"` : 'no "schema" naming its version';
    throw new AgentdevelError('HISTORY_INVALID', `${file}: the labels document has ${written}; this agentdevel reads ${LABELS_SCHEMAS_READ.join(' and ')}`, {
      location: { file, key: 'schema' },
      hint: typeof schema === 'string' ? 'A newer agentdevel wrote it: upgrade agentdevel to read the vocabulary this workspace holds.' : 'agentdevel did not write this document: restore the ref from a clone that has a good one.',
    });
  }
  return parseJsonDocument(text, file, anyLabelsDocumentSchema, 'HISTORY_INVALID');
}

/** The aliases in effect at a point of the loop; `'all'` for every one recorded (commands outside the loop). */
export function aliasesInEffect(aliases: readonly LabelAlias[], at: AliasEffect | 'all'): LabelAlias[] {
  if (at === 'all') return [...aliases];
  return aliases.filter((a) => a.effective.iteration < at.iteration || (a.effective.iteration === at.iteration && (a.effective.stage === 'start' || at.stage === 'synthesis')));
}

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

/** Who merges, when it takes effect, why, with what evidence, and when it was recorded. */
export interface MergeSource {
  readonly by: LabelAlias['by'];
  readonly reason: string;
  readonly at: string;
  readonly effective: AliasEffect;
  readonly evidence?: readonly string[];
}

/**
 * The aliases a merge of `labels` into `into` adds: every named label other than `into` reads as
 * it. Refused (a message) when it would make a label an alias of itself through a chain.
 */
export function mergeAliases(current: readonly LabelAlias[], labels: readonly string[], into: string, source: MergeSource): LabelAlias[] | string {
  const map = aliasMap(current);
  const target = map.get(into) ?? into;
  const added: LabelAlias[] = [];
  for (const name of new Set(labels)) {
    if (name === target || map.get(name) === target) continue;
    if (map.has(name)) return `"${name}" already reads as "${map.get(name)}"; merge that label instead`;
    added.push({ from: name, to: target, by: source.by, reason: source.reason, at: source.at, evidence: [...(source.evidence ?? [])], effective: source.effective });
  }
  return added;
}

/**
 * Two clones' documents made one (sync after `labels merge` in both): every alias of either,
 * each (from, to) once, in the order they were recorded (then by label, so both clones write
 * the same document); where two name different targets for one label, the later one wins.
 */
export function mergeLabelDocuments(ours: LabelsDocument, theirs: LabelsDocument): LabelsDocument {
  const seen = new Set<string>();
  const aliases = [...ours.aliases, ...theirs.aliases]
    .filter((a) => {
      const key = `${a.from}\u0000${a.to}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
  return { schema: LABELS_SCHEMA, aliases };
}

/** A merge the diagnostician proposes with its report: synonyms of one fault, and the cases that show it. */
export const labelMergeProposalSchema = z.object({
  labels: z.array(label).min(2),
  into: label,
  reason: z.string().min(1),
  evidence: z.array(z.string()).min(1),
});
export type LabelMergeProposal = z.output<typeof labelMergeProposalSchema>;

/**
 * What is wrong with a proposal, one line each (empty when it may be recorded): every label is
 * one of the vocabulary, `into` is one of them, every evidence case failed in the diagnosed run
 * with one of the labels, and the evidence covers at least two of them (it shows they are one).
 */
export function mergeProposalProblems(proposal: LabelMergeProposal, vocabulary: ReadonlySet<string>, failedWith: ReadonlyMap<string, ReadonlySet<string>>, where: string): string[] {
  const problems: string[] = [];
  for (const name of proposal.labels) if (!vocabulary.has(name)) problems.push(`${where}.labels: "${name}" is not a label of the taxonomy`);
  if (!proposal.labels.includes(proposal.into)) problems.push(`${where}.into: "${proposal.into}" is not one of the labels merged (${proposal.labels.join(', ')})`);
  const covered = new Set<string>();
  for (const caseId of proposal.evidence) {
    const labels = failedWith.get(caseId);
    if (!labels) problems.push(`${where}.evidence: "${caseId}" is not a case that failed in the diagnosed run`);
    else {
      const shared = proposal.labels.filter((l) => labels.has(l));
      if (shared.length === 0) problems.push(`${where}.evidence: "${caseId}" failed with ${[...labels].join(', ')}, none of the labels merged`);
      for (const l of shared) covered.add(l);
    }
  }
  if (problems.length === 0 && covered.size < 2) problems.push(`${where}.evidence: the cases show only ${[...covered].join(', ')}; name cases of at least two of the labels merged`);
  return problems;
}
