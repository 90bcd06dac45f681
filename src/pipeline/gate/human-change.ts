// A person's change through the gate, by kind of path (src/domain/human-change.ts): the
// blueprint is measured, the task is what both sides are measured on, the config is the line's
// while the gate runs, and the rest is listed as not gated. RCs a model wrote keep the strict
// rule (their blueprint only), checked where they are gated.
import { CONFIG_FILE, parseConfig } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { declareSecrets, valuesOf } from '../../domain/environment.ts';
import type { HumanChange, TestSplitChange } from '../../domain/human-change.ts';
import { parseJson } from '../../domain/json.ts';
import { changeScope, changedConfigKeys, CONFIG_PATH, taskFolder } from '../../stages/gate/change-scope.ts';
import { linksLeavingBlueprint } from '../loop/candidate.ts';
import { trainChangesBetween } from '../loop/rc-history.ts';
import type { BaselineScreen } from '../run/execute-run.ts';
import type { PipelineContext } from '../context.ts';
import type { Workspace } from '../workspace/workspace.ts';
import { gradingChange } from './measuring-stick.ts';

const short = (sha: string): string => sha.slice(0, 10);

/** The keys that say which line a config belongs to: a change to them is another line, not a version of this one. */
const LINE_KEYS: ReadonlyArray<{ readonly key: string; readonly of: (config: Config) => string }> = [
  { key: 'blueprint', of: (c) => c.blueprint },
  { key: 'line.branch', of: (c) => c.line.branch },
  { key: 'line.tagPrefix', of: (c) => c.line.tagPrefix },
];

/**
 * The context a person's change is gated in: the line's config, as the commit it is gated
 * against holds it, whatever the checkout's says. In CI the checkout is the change itself, and
 * a change must not set its own gate rule (its config reaches the line when merged).
 */
export async function underLineConfig(context: PipelineContext, baseline: { readonly commit: string; readonly label: string }): Promise<PipelineContext> {
  const { workspace } = context;
  const file = `${short(baseline.commit)}:${CONFIG_FILE}`;
  const text = await workspace.repo.readFileAt(baseline.commit, CONFIG_FILE);
  if (text === null) {
    throw new AgentdevelError('CONFIG_MISSING', `${baseline.label} (${short(baseline.commit)}) has no ${CONFIG_FILE}: a change is gated under the config of the version it is gated against`);
  }
  const line = parseConfig(text, file);
  for (const { key, of } of LINE_KEYS) {
    if (of(line) !== of(workspace.config)) {
      throw new AgentdevelError('CONFIG_INVALID', `${CONFIG_FILE}: ${key}: the checkout says "${of(workspace.config)}", the line's config (at ${baseline.label}) says "${of(line)}"; a change that moves the line itself cannot be gated against it`, {
        hint: `Gate the other changes first and change ${key} in a commit of its own, outside the gate.`,
        location: { file: CONFIG_FILE, key },
      });
    }
  }
  const config = { ...line, ...context.overrides };
  if (changedConfigKeys(config, workspace.config).length === 0) return context;
  // Whatever the line's config passes to the agent or declares secret is redacted, as the checkout's is.
  declareSecrets(valuesOf(context.parentEnv, [...config.command.passEnv, ...config.secrets]));
  const sameModels = changedConfigKeys(config.models, workspace.config.models).length === 0;
  return { ...context, workspace: withConfig(workspace, config), model: sameModels ? context.model : (context.modelFor?.(config.models) ?? context.model) };
}

/** The keys in which the checkout's config differs from the one a gate runs under (none when it runs under the checkout's). */
export function checkoutConfigDrift(outer: PipelineContext, gated: PipelineContext): string[] {
  return outer === gated ? [] : changedConfigKeys(gated.workspace.config, outer.workspace.config);
}

function withConfig(workspace: Workspace, config: Config): Workspace {
  return {
    root: workspace.root,
    stateDir: workspace.stateDir,
    tracesRoot: workspace.tracesRoot,
    repo: workspace.repo,
    files: workspace.files,
    checkpoint: workspace.checkpoint,
    config,
    get store() {
      return workspace.store;
    },
    close: () => workspace.close(),
  };
}

export interface HumanChangeScope {
  /** Symbolic links in the blueprint folder that lead out of it: the change is rejected before it runs. */
  readonly outside: readonly string[];
  /** What the candidate is compared with: the release itself, or the release on the candidate's task. */
  readonly baseline: { readonly commit: string; readonly label: string; readonly onCandidateTask: boolean };
  /** What it changes beyond the blueprint (the release's results on its cases filled in after the screen); null for a blueprint-only change. */
  readonly change: HumanChange | null;
}

export interface HumanChangeInput {
  readonly ref: string;
  readonly commit: string;
  /** Where the change was cut from: what its own edits are measured against. */
  readonly changeBase: string;
  readonly changed: ReadonlyArray<{ readonly path: string }>;
  /** The version it is gated against. */
  readonly release: { readonly commit: string; readonly label: string };
  /** Its change to the sealed test split, let through with --reseal-test (measuring-stick.ts refuses it otherwise). */
  readonly testSplit: TestSplitChange | null;
}

/**
 * Sorts a person's change by kind of path and makes the version it is compared with. When the
 * candidate's task differs from the release's, that version is the release's blueprint in the
 * candidate's tree: a commit on no branch whose parent is the release, so both sides run on one
 * task and the gate's guarantee holds as it is.
 */
export async function scopeHumanChange(context: PipelineContext, input: HumanChangeInput): Promise<HumanChangeScope> {
  const { workspace } = context;
  const { repo, config } = workspace;
  const paths = input.changed.map((c) => c.path);
  const scope = changeScope(paths, config);
  const outside = await linksLeavingBlueprint(workspace, input.commit);
  const configChange = scope.config ? await configChangeOf(workspace, input) : null;
  const folder = taskFolder(config.task);
  const taskDiffers = (await repo.treeId(input.release.commit, folder.slice(0, -1))) !== (await repo.treeId(input.commit, folder.slice(0, -1)));
  let task: HumanChange['task'] = null;
  let grading: HumanChange['grading'] = null;
  let baseline: HumanChangeScope['baseline'] = { ...input.release, onCandidateTask: false };
  if (scope.task.length > 0 || taskDiffers) {
    grading = await gradingChange(repo, config, input.release, { commit: input.commit, label: `${input.ref} (${short(input.commit)})` });
    const label = `${input.release.label} on ${input.ref}'s task`;
    const commit = await repo.graftCommit({
      onto: input.commit,
      folder: `blueprints/${config.blueprint}`,
      from: input.release.commit,
      parent: input.release.commit,
      message: `agentdevel: ${label}\n\nThe blueprint of ${input.release.label} (${input.release.commit}) in the tree of ${input.ref} (${input.commit}):\nthe version a gate compares the change with, so both run on one task. On no branch.\n`,
    });
    const cases = (await trainChangesBetween(workspace, input.changeBase, input.commit)) ?? { added: [], removed: [], edited: [] };
    task = { folder, paths: [...scope.task], cases: { added: [...cases.added], removed: [...cases.removed], edited: [...cases.edited] }, baseline: { commit, label }, releaseOnCases: [] };
    baseline = { commit, label, onCandidateTask: true };
  }
  const beyondBlueprint = task !== null || configChange !== null || scope.notGated.length > 0;
  const change = beyondBlueprint ? { blueprint: scope.blueprint.length > 0, task, config: configChange, notGated: [...scope.notGated], grading, testSplit: input.testSplit } : null;
  return { outside, baseline, change };
}

/** The change with the release's results on the cases it added or edited, from the release's screen on the candidate's task. */
export function withReleaseResults(change: HumanChange | null, screen: BaselineScreen | null): HumanChange | null {
  if (!change?.task || !screen) return change;
  const ids = [...change.task.cases.added, ...change.task.cases.edited];
  const releaseOnCases = ids.flatMap((caseId) => {
    const summary = screen.cases.get(caseId);
    return summary ? [{ caseId, passes: summary.passes, graded: summary.graded }] : [];
  });
  return { ...change, task: { ...change.task, releaseOnCases } };
}

/**
 * What a change does to agentdevel.config.json: the top-level keys it changes. The candidate's
 * config must load (exit 2 naming the file and key otherwise): it becomes the line's when merged.
 */
async function configChangeOf(workspace: Workspace, input: HumanChangeInput): Promise<HumanChange['config']> {
  const file = `${input.ref}:${CONFIG_PATH}`;
  const text = await workspace.repo.readFileAt(input.commit, CONFIG_PATH);
  if (text === null) {
    throw new AgentdevelError('CONFIG_MISSING', `--candidate: "${input.ref}" deletes ${CONFIG_PATH}; the line would have no config once it is merged`, {
      hint: `Restore ${CONFIG_PATH} in the change.`,
      location: { file: CONFIG_PATH },
    });
  }
  parseConfig(text, file);
  const before = await workspace.repo.readFileAt(input.changeBase, CONFIG_PATH);
  const parsed = (value: string | null): unknown => {
    const result = value === null ? null : parseJson(value);
    return result?.ok ? result.value : {};
  };
  return { file: CONFIG_PATH, keys: changedConfigKeys(parsed(before), parsed(text)) };
}
