// A person's change is more than an agent: it may add cases, edit the rubric, touch the config
// or a README beside the blueprint. An RC a model wrote may edit its blueprint only; a change a
// person wrote is gated by kind of path instead (README, "A gate with a stated error rate"):
//
// - the blueprint folder is the agent: what the gate measures;
// - the task folder (rubrics/<task>/) is what both sides are measured on: the release runs on
//   the candidate's task too, so a flip is a change of agent, never a change of yardstick;
// - agentdevel.config.json is the gate's own rule: the gate runs under the line's, never under
//   the one the change brings (it reaches the line when merged);
// - anything else (README, .github/**) is not the agent: listed, not gated.
//
// This is what a decision records of it (decision.json's `change`).
import { z } from './zod.ts';

const caseIds = z.array(z.string());

export const humanChangeSchema = z.object({
  /** Whether it edits the blueprint folder; false: the release is compared with itself. */
  blueprint: z.boolean(),
  /** Its edits to the task folder; null when it edits none. */
  task: z
    .object({
      /** rubrics/<task>/ */
      folder: z.string(),
      /** The paths it changes there. */
      paths: z.array(z.string()),
      /** The train split's cases by id, against where the change was cut from. */
      cases: z.object({ added: caseIds, removed: caseIds, edited: caseIds }),
      /**
       * The version the candidate was compared with: the release's blueprint in the candidate's
       * tree (a commit on no branch, whose parent is the release), named "<release> on <ref>'s task".
       */
      baseline: z.object({ commit: z.string(), label: z.string() }),
      /** The release's screen on the cases the change added or edited. */
      releaseOnCases: z.array(z.object({ caseId: z.string(), passes: z.number().int().min(0), graded: z.number().int().min(0) })),
    })
    .nullable(),
  /** agentdevel.config.json, when it changes it: the top-level keys whose values differ. The gate ran under the line's. */
  config: z.object({ file: z.string(), keys: z.array(z.string()) }).nullable(),
  /** Paths it changes that are neither the blueprint, the task nor the config: not gated. */
  notGated: z.array(z.string()),
});
export type HumanChange = z.infer<typeof humanChangeSchema>;

/** The paths outside the blueprint folder a decision recorded as part of the gated change (what `approve` lets through). */
export function recordedOutsidePaths(change: HumanChange | null): string[] {
  if (!change) return [];
  return [...(change.task?.paths ?? []), ...(change.config ? [change.config.file] : []), ...change.notGated];
}
