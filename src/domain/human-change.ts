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
// Two parts of the task are the measuring stick itself, and a change to them is said aloud:
// - the test split (rubrics/<task>/test.jsonl) is sealed: a change to it is refused unless the
//   user asks for it (`--reseal-test`), and then the new split's digest is recorded here, in the
//   release commit, as the seal the line's later test evaluations are taken against;
// - the grading (the rubric, task.json's scorers, scorer scripts, the environment: every file of
//   the task folder but the two splits) is named in every output with the version each side was
//   graded under.
//
// This is what a decision records of it (decision.json's `change`).
import { z } from './zod.ts';

const caseIds = z.array(z.string());

/**
 * A version of the grading: a digest of the task folder's files but its splits (their paths
 * and git blob ids), with the commit it was read at.
 */
const gradingVersionSchema = z.object({ digest: z.string(), commit: z.string(), label: z.string() });

export const gradingChangeSchema = z.object({
  /** The grading files that differ between the release and the candidate (task folder relative). */
  files: z.array(z.string()),
  /** What the release's earlier runs were graded under: its own task. */
  release: gradingVersionSchema,
  /** The candidate's: what this gate graded both sides under. */
  candidate: gradingVersionSchema,
});
export type GradingChange = z.infer<typeof gradingChangeSchema>;

export const testSplitChangeSchema = z.object({
  /** rubrics/<task>/test.jsonl */
  path: z.string(),
  /** Its git blob id where the change was cut from, and in the candidate (null: absent). */
  before: z.string().nullable(),
  after: z.string().nullable(),
  /** The user asked for it (--reseal-test): the seal is taken again on the candidate's split. */
  resealed: z.literal(true),
});
export type TestSplitChange = z.infer<typeof testSplitChangeSchema>;

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
  /** What grades the cases (the task folder but its splits), when it differs from the release's; absent in decisions recorded before it was. */
  grading: gradingChangeSchema.nullable().optional(),
  /** The sealed test split, when the change edits, adds to, moves or deletes it (only with --reseal-test); absent before it was recorded. */
  testSplit: testSplitChangeSchema.nullable().optional(),
});
export type HumanChange = z.infer<typeof humanChangeSchema>;

/** The paths outside the blueprint folder a decision recorded as part of the gated change (what `approve` lets through). */
export function recordedOutsidePaths(change: HumanChange | null): string[] {
  if (!change) return [];
  return [...(change.task?.paths ?? []), ...(change.config ? [change.config.file] : []), ...change.notGated];
}
