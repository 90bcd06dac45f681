import { inferTypedChanges } from '../../domain/blueprint-components.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { Workspace } from '../workspace/workspace.ts';

/**
 * A person's change states no edit types; the intent then carries the types its diff shows
 * (one per component it changes, by the same component model as the scope check), marked
 * inferred so no report passes them off as the author's word. Null without an intent to carry them.
 */
export async function withInferredEdits(workspace: Workspace, intent: ChangeIntent | null, change: { readonly base: string; readonly commit: string; readonly changed: ReadonlyArray<{ readonly path: string }> }): Promise<ChangeIntent | null> {
  if (!intent || (intent.edits?.length ?? 0) > 0) return intent;
  const { repo, config } = workspace;
  const root = `blueprints/${config.blueprint}`;
  const listed = await repo.filesUnder(change.base, root);
  const contents = await repo.readTextFilesAt(listed.map((f) => ({ commit: change.base, path: f.path })));
  const files = listed.flatMap((f, i) => (contents[i] === null || contents[i] === undefined ? [] : [{ path: f.path, content: contents[i] as string }]));
  const paths = change.changed.map((c) => c.path).filter((p) => p.startsWith(`${root}/`));
  const after = await repo.readTextFilesAt(paths.map((path) => ({ commit: change.commit, path })));
  const edits = paths.map((path, i) => ({ path, content: after[i] ?? null }));
  const inferred = inferTypedChanges(files, edits, root);
  return inferred.length === 0 ? intent : { ...intent, edits: inferred, editsInferred: true };
}
