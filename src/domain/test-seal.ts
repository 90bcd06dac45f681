// The seal of the test split: one record per test evaluation of a release, kept in git (a ref
// under refs/agentdevel/test/), so it survives a lost store and travels with a push. One
// versioned schema; the reader accepts every version written so far.
import { z } from './zod.ts';

/** Version 2 names its schema; version 1 wrote `"schema": 1` and is read as it is. */
export const TEST_SEAL_SCHEMA = 'agentdevel/test-seal@2';

export const testSealSchema = z.object({
  schema: z.union([z.literal(TEST_SEAL_SCHEMA), z.literal(1)]),
  blueprint: z.string(),
  release: z.string(),
  commit: z.string(),
  runId: z.string(),
  passRate: z.number().min(0).max(1),
  passed: z.number().int().min(0).nullable(),
  graded: z.number().int().min(0).nullable(),
  at: z.string(),
  simulated: z.boolean(),
});

export type TestSeal = z.output<typeof testSealSchema>;

export const TEST_SEAL_FILE = 'test-evaluation.json';
