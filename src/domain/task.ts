// A task as the pipeline passes it along (adapters/task/load.ts loads it from rubrics/<task>/).
import type { Requirement } from './requirements.ts';
import type { TaskManifest } from './task-manifest.ts';

/** A task as loaded from rubrics/<task>/ at one version. Frozen: no RC may change it. */
export interface Task {
  readonly name: string;
  /** The workspace (or checkout) it was loaded from; errors name files relative to it. */
  readonly workspace: string;
  readonly root: string;
  readonly manifest: TaskManifest;
  readonly rubric: string;
  /** The rubric's task-wide requirements (its ```json requirements block). */
  readonly requirements: readonly Requirement[];
  /** Absolute path of the environment module, when the task has one. */
  readonly environmentModule: string | null;
  /** Every path of a case the grading reads (`caseGradingPaths`): hidden from the agent and the queue. */
  readonly gradingPaths: readonly string[];
}
