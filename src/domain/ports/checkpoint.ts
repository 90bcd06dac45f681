// Named moments of the work a crash must never spoil, where a test may stop a process on purpose.
// Outside tests the checkpoint does nothing; a test arms it (the CLI's AGENTDEVEL_TEST_PAUSE_AT)
// so the process pauses at one moment and can be killed there, whatever the machine's speed.

/** The moments, in the order they come. */
export const CHECKPOINT_MOMENTS = [
  // A promotion: the release commit and its tag object exist; no journal yet, no ref moved.
  'release-committed',
  // A promotion: the journal is written; no ref moved yet.
  'journal-written',
  // A promotion: the line, the tag and the audit ref moved in one transaction; the checked-out
  // files have not followed yet, and the journal is still there.
  'refs-moved',
  // A queue worker holds a case-trial job (its lock taken) and has not run it yet.
  'worker-took-job',
] as const;

export type CheckpointMoment = (typeof CHECKPOINT_MOMENTS)[number];

/** Called when the work reaches `moment`; it may hold the caller there (a test's pause). */
export type Checkpoint = (moment: CheckpointMoment) => Promise<void>;

/** The checkpoint of every run that is not a test: it never holds anything. */
export const noCheckpoint: Checkpoint = async () => undefined;
