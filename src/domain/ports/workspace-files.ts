// What the pipeline reads of a checkout's task and blueprint folders: tasks (rubrics/<task>) and
// blueprints (blueprints/<name>), validated, with errors naming the file. adapters/task and
// adapters/blueprint implement them; app/workspace.ts wires them into every Workspace.
import type { BlueprintManifest } from '../blueprint-manifest.ts';
import type { Case, Split } from '../case.ts';
import type { Task } from '../task.ts';
import type { BlueprintBrief, BlueprintFile, TaskBrief } from './model.ts';

export interface TaskFiles {
  /** rubrics/<name>/task.json of the checkout at `dir`, validated (rubric, scorers, splits). */
  loadTask(dir: string, name: string): Promise<Task>;
  /** A split's cases, validated against what the task's scorers need; the first bad line is the error. */
  loadSplit(task: Task, split: Split): Promise<Case[]>;
  /**
   * What the synthesizer is told about the task in the checkout at `dir`: its rubric, and the
   * environment's API generated from its module (bundled in `buildDir`, removed after).
   */
  readBrief(dir: string, name: string, buildDir: string): Promise<TaskBrief>;
}

export interface BlueprintFiles {
  /** blueprints/<name>/blueprint.json of the checkout at `dir`, validated. */
  readManifest(dir: string, name: string): Promise<BlueprintManifest>;
  /** The blueprint's files as the synthesizer and the critic's ablation see them. */
  readFiles(dir: string, name: string): Promise<BlueprintFile[]>;
  /** What the synthesizer is told about the blueprint's runtime (its keys and checks). */
  readBrief(dir: string, name: string): Promise<BlueprintBrief>;
  /**
   * Why the blueprint in the checkout at `dir` would not load as a run loads it (links, manifest,
   * templates, tool wrappers, the rendered prompt), as one line; null when it loads. Anything that
   * is not the blueprint's doing (git, the disk, a bug) throws.
   */
  loadProblem(dir: string, name: string, limits: { readonly callTimeoutMs: number; readonly memoryMb: number }, buildDir: string): Promise<string | null>;
}

export interface WorkspaceFiles {
  readonly tasks: TaskFiles;
  readonly blueprints: BlueprintFiles;
}
