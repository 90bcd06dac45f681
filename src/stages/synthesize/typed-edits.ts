import type { BlueprintFile } from '../../domain/ports/model.ts';
import type { FileEdit, TypedChange } from '../../domain/release-candidate.ts';
import { blueprintComponents, type BlueprintComponent } from '../gradient/components.ts';

/** What a component is, as far as an edit can change it: its file's content, or its section's text. */
function signatures(files: readonly BlueprintFile[], root: string): Map<string, string> {
  const byPath = new Map(files.map((f) => [f.path, f.content]));
  return new Map(blueprintComponents(files, root).map((c: BlueprintComponent) => [c.id, c.text ?? (c.path ? (byPath.get(c.path) ?? '\u0000absent') : c.name)]));
}

function applied(files: readonly BlueprintFile[], edits: readonly FileEdit[]): BlueprintFile[] {
  const byPath = new Map(files.map((f) => [f.path, f.content]));
  for (const edit of edits) {
    if (edit.content === null) byPath.delete(edit.path);
    else byPath.set(edit.path, edit.content);
  }
  return [...byPath].map(([path, content]) => ({ path, content }));
}

/** The components whose content differs between two versions, or that exist in only one. */
export function changedComponents(before: readonly BlueprintFile[], after: readonly BlueprintFile[], root: string): string[] {
  const a = signatures(before, root);
  const b = signatures(after, root);
  return [...new Set([...a.keys(), ...b.keys()])].filter((id) => a.get(id) !== b.get(id)).sort();
}

/**
 * The scope check of typed edits. Each edit may change only the component it names: applied
 * alone to the current blueprint, any other component it changes refuses the RC, naming both.
 * Over the whole RC, `remove` must make its component disappear, `add` create it, and `revise`
 * keep it. Untyped edits are not checked here (the folder scope still applies).
 */
export function typedEditProblems(files: readonly BlueprintFile[], edits: readonly FileEdit[], root: string): string[] {
  const problems: string[] = [];
  const typed = edits.filter((e): e is FileEdit & Required<Pick<FileEdit, 'type' | 'component'>> => e.type !== undefined && e.component !== undefined);
  for (const edit of edits) {
    if ((edit.type === undefined) !== (edit.component === undefined)) problems.push(`${edit.path}: a typed edit gives both "type" and "component"`);
  }
  for (const edit of typed) {
    const others = changedComponents(files, applied(files, [edit]), root).filter((id) => id !== edit.component);
    if (others.length > 0) problems.push(`${edit.type} ${edit.component} (${edit.path}) also changes ${others.join(', ')}: an edit may change only the component it names`);
  }
  const before = signatures(files, root);
  const after = signatures(applied(files, edits), root);
  for (const edit of typed) {
    const existed = before.has(edit.component);
    const exists = after.has(edit.component);
    if (edit.type === 'remove' && (!existed || exists)) problems.push(`remove ${edit.component}: ${existed ? 'it is still there after the edits' : 'the blueprint has no such component'}`);
    if (edit.type === 'add' && (existed || !exists)) problems.push(`add ${edit.component}: ${existed ? 'it exists already (revise it instead)' : 'the edits do not create it'}`);
    if (edit.type === 'revise' && (!existed || !exists)) problems.push(`revise ${edit.component}: ${existed ? 'the edits remove it (type it remove)' : 'the blueprint has no such component (type it add)'}`);
  }
  return [...new Set(problems)];
}

/** The RC's typed edits, one per component and type, for the intent (what the reports group). */
export function typedChanges(edits: readonly FileEdit[]): TypedChange[] {
  const changes = new Map<string, TypedChange>();
  for (const edit of edits) {
    if (!edit.type || !edit.component) continue;
    const key = `${edit.type} ${edit.component}`;
    const change = changes.get(key) ?? { type: edit.type, component: edit.component, paths: [] };
    changes.set(key, { ...change, paths: [...change.paths, edit.path] });
  }
  return [...changes.values()];
}

