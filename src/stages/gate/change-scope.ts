// What a person's change touches, by kind of path (domain/human-change.ts says what each kind
// means to the gate). Pure: the pipeline reads the paths and the config texts from git.
import { canonicalJson } from '../../domain/json.ts';
import { insideBlueprint } from '../synthesize/edits.ts';

export const CONFIG_PATH = 'agentdevel.config.json';

export interface ChangeScope {
  /** Paths in blueprints/<bp>/: the agent. */
  readonly blueprint: readonly string[];
  /** Paths in rubrics/<task>/: what both sides are measured on. */
  readonly task: readonly string[];
  /** Whether agentdevel.config.json changes. */
  readonly config: boolean;
  /** Everything else: not the agent, not gated. */
  readonly notGated: readonly string[];
}

export function taskFolder(task: string): string {
  return `rubrics/${task}/`;
}

/** Sorts a change's paths into the blueprint, the task, the config and the rest. */
export function changeScope(paths: readonly string[], line: { readonly blueprint: string; readonly task: string }): ChangeScope {
  const folder = taskFolder(line.task);
  const blueprint = paths.filter((p) => insideBlueprint(p, line.blueprint));
  const task = paths.filter((p) => !blueprint.includes(p) && p.startsWith(folder) && !p.split('/').includes('..'));
  const config = paths.includes(CONFIG_PATH);
  const notGated = paths.filter((p) => !blueprint.includes(p) && !task.includes(p) && p !== CONFIG_PATH);
  return { blueprint, task, config, notGated };
}

/**
 * The top-level keys of two config documents (as written, parsed JSON) whose values differ, in
 * the order the newer one lists them, then the keys it dropped. Key order and formatting do not count.
 */
export function changedConfigKeys(before: unknown, after: unknown): string[] {
  const record = (value: unknown): Record<string, unknown> => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
  const old = record(before);
  const now = record(after);
  const differs = (key: string) => !(key in old) || !(key in now) || canonicalJson(old[key]) !== canonicalJson(now[key]);
  return [...Object.keys(now), ...Object.keys(old).filter((key) => !(key in now))].filter(differs);
}
