// The label aliases of a blueprint's vocabulary, read from and written to git
// (refs/agentdevel/labels/<bp>: a chain of document commits, one per change; two clones' chains
// are merged by `sync`, see sync-refs.ts).
import type { Config } from '../../config/schema.ts';
import { LABELS_FILE, LABELS_SCHEMA, aliasMap, aliasesInEffect, parseLabelsDocument, type AliasEffect, type LabelAlias, type LabelsDocument } from '../../domain/label-aliases.ts';
import type { HistoryReader, HistoryWriter, RefReader } from '../../domain/ports/repository.ts';

export function labelsRef(config: Config): string {
  return `refs/agentdevel/labels/${config.blueprint}`;
}

/** The labels document at a commit of the labels ref (either version), or none recorded. */
export async function readLabelsAt(repo: RefReader & HistoryReader & HistoryWriter, commit: string | null, where: string): Promise<LabelsDocument> {
  const text = commit === null ? null : await repo.readFileAt(commit, LABELS_FILE);
  if (text === null) return { schema: LABELS_SCHEMA, aliases: [] };
  return parseLabelsDocument(text, `${where}:${LABELS_FILE}`);
}

/** The recorded aliases (none when nothing was ever merged). */
export async function readLabelAliases(repo: RefReader & HistoryReader & HistoryWriter, config: Config): Promise<LabelsDocument> {
  const ref = labelsRef(config);
  // Absent when nothing was ever merged: the read says so (null), in one git process.
  return readLabelsAt(repo, ref, ref);
}

export function labelsText(document: LabelsDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Records the aliases `added` in git, on top of the recorded document (or of `base` for the
 * first), each (from, to) once. Returns the aliases it recorded (none when all were there).
 */
export async function writeLabelAliases(repo: RefReader & HistoryReader & HistoryWriter, config: Config, added: readonly LabelAlias[], base: string): Promise<LabelAlias[]> {
  const ref = labelsRef(config);
  const old = await repo.refValue(ref);
  const previous = await readLabelsAt(repo, old, ref);
  const known = new Set(previous.aliases.map((a) => `${a.from}\u0000${a.to}`));
  const fresh = added.filter((a) => !known.has(`${a.from}\u0000${a.to}`));
  if (fresh.length === 0) return [];
  const document: LabelsDocument = { schema: LABELS_SCHEMA, aliases: [...previous.aliases, ...fresh] };
  const message = `labels: ${fresh.map((a) => `${a.from} → ${a.to}`).join(', ')} (by the ${fresh[0]?.by ?? 'person'})\n\n${fresh[0]?.reason ?? ''}\n`;
  const commit = await repo.documentCommit(old ?? base, [{ name: LABELS_FILE, content: labelsText(document) }], message);
  await repo.updateRefs([{ ref, newValue: commit, oldValue: old }]);
  return fresh;
}

/**
 * The aliases in effect at a point of the loop (all recorded ones for commands outside it): what
 * a store reads labels through (`RecordStore.throughAliases`). An iteration replayed from before
 * an alias was recorded so sees the taxonomy as it stood.
 */
export async function labelAliasesAt(repo: RefReader & HistoryReader & HistoryWriter, config: Config, at: AliasEffect | 'all'): Promise<ReadonlyMap<string, string>> {
  return aliasMap(aliasesInEffect((await readLabelAliases(repo, config)).aliases, at));
}
