import { editEffects, isPartOf } from '../../domain/blueprint-components.ts';
import type { BlueprintFile } from '../../domain/ports/model.ts';
import type { FileEdit, TypedChange } from '../../domain/release-candidate.ts';

/**
 * The scope check of typed edits (the component model is domain/blueprint-components.ts). Every
 * edit of a synthesized RC is typed, and each may change only the component it names: applied
 * alone to the current blueprint, any other component it changes refuses the RC, naming both.
 * Over the whole RC, `remove` must make its component disappear, `add` create it, and `revise`
 * keep it and change it. The agent (or the orchestrator) holds its prompt's sections as parts: an
 * edit that names it may change them, and a revise of it may change only them. An edit that alone changes no component (a helper module the wrappers
 * import) is held to the component it names through the whole RC: that component must change.
 */
export function typedEditProblems(files: readonly BlueprintFile[], edits: readonly FileEdit[], root: string): string[] {
  const problems: string[] = [];
  for (const edit of edits) {
    if (edit.type === undefined || edit.component === undefined) {
      problems.push(`${edit.path}: an untyped edit: every edit gives its "type" (remove, revise or add) and the "component" it changes`);
    }
  }
  const effects = editEffects(files, edits, root);
  edits.forEach((edit, i) => {
    if (edit.type === undefined || edit.component === undefined) return;
    const others = (effects.alone[i] ?? []).filter((id) => id !== edit.component && !isPartOf(id, edit.component as string));
    if (others.length > 0) problems.push(`${edit.type} ${edit.component} (${edit.path}) also changes ${others.join(', ')}: an edit may change only the component it names`);
  });
  for (const edit of edits) {
    if (edit.type === undefined || edit.component === undefined) continue;
    const existed = effects.before.has(edit.component);
    const exists = effects.after.has(edit.component);
    if (edit.type === 'remove' && (!existed || exists)) problems.push(`remove ${edit.component}: ${existed ? 'it is still there after the edits' : 'the blueprint has no such component'}`);
    if (edit.type === 'add' && (existed || !exists)) problems.push(`add ${edit.component}: ${existed ? 'it exists already (revise it instead)' : 'the edits do not create it'}`);
    if (edit.type === 'revise') {
      if (!existed || !exists) problems.push(`revise ${edit.component}: ${existed ? 'the edits remove it (type it remove)' : 'the blueprint has no such component (type it add)'}`);
      else if (!changedWithParts(effects, edit.component)) problems.push(`revise ${edit.component} (${edit.path}): the edits do not change it (a revise must change the component it names)`);
    }
  }
  return [...new Set(problems)];
}

function changedWithParts(effects: ReturnType<typeof editEffects>, component: string): boolean {
  const ids = new Set([...effects.before.keys(), ...effects.after.keys()]);
  return [...ids].some((id) => (id === component || isPartOf(id, component)) && effects.before.get(id) !== effects.after.get(id));
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
