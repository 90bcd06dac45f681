// The label aliases of a blueprint's vocabulary, read from and written to git
// (refs/agentdevel/labels/<bp>: a chain of document commits, one per change).
import type { Config } from '../../config/schema.ts';
import { parseJsonDocument } from '../../domain/json-document.ts';
import { LABELS_FILE, LABELS_SCHEMA, labelsDocumentSchema, type LabelAlias, type LabelsDocument } from '../../domain/label-aliases.ts';
import type { GitRepo } from '../../adapters/git/git.ts';

export function labelsRef(config: Config): string {
  return `refs/agentdevel/labels/${config.blueprint}`;
}

/** The recorded aliases (none when nothing was ever merged). */
export async function readLabelAliases(repo: GitRepo, config: Config): Promise<LabelsDocument> {
  const ref = labelsRef(config);
  // Absent when nothing was ever merged: the read says so (null), in one git process.
  const text = await repo.readFileAt(ref, LABELS_FILE);
  if (text === null) return { schema: LABELS_SCHEMA, aliases: [] };
  return parseJsonDocument(text, `${ref}:${LABELS_FILE}`, labelsDocumentSchema, 'STORE_DAMAGED');
}

/** Records the aliases `added` in git, on top of the previous document (or of `base` for the first). */
export async function writeLabelAliases(repo: GitRepo, config: Config, previous: LabelsDocument, added: readonly LabelAlias[], base: string): Promise<LabelsDocument> {
  const ref = labelsRef(config);
  const old = await repo.refValue(ref);
  const document: LabelsDocument = { schema: LABELS_SCHEMA, aliases: [...previous.aliases, ...added] };
  const message = `labels: ${added.map((a) => `${a.from} → ${a.to}`).join(', ')}\n\n${added[0]?.reason ?? ''}\n`;
  const commit = await repo.documentCommit(old ?? base, [{ name: LABELS_FILE, content: `${JSON.stringify(document, null, 2)}\n` }], message);
  await repo.updateRefs([{ ref, newValue: commit, oldValue: old }]);
  return document;
}
