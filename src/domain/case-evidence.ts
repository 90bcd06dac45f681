// What a reviewer needs to see each flipped case for themselves: the case, what was expected,
// and one trial of each side with its output, grading and trace. Written beside decision.json
// as `cases.json`, so the HTML report can be rebuilt from git alone (traces/ is not in git).
import { parseJsonDocument } from './json-document.ts';
import { scorerResultSchema, criticVerdictSchema } from './record.ts';
import { traceEventSchema } from './trace.ts';
import { z } from './zod.ts';

export const CASE_EVIDENCE_SCHEMA = 'agentdevel/case-evidence@1';

const trialSchema = z.object({
  trial: z.number().int(),
  status: z.enum(['ok', 'infra_error']),
  pass: z.boolean().nullable(),
  output: z.unknown(),
  scorer: scorerResultSchema.nullable(),
  critic: criticVerdictSchema.nullable(),
  agentError: z.string().nullable(),
  error: z.string().nullable(),
  /** The one-line reason (scorer check, critic label, agent error); "passed" when it passed. */
  reason: z.string(),
  trace: z.array(traceEventSchema),
  /** Events left out of `trace` to keep the document small. */
  omittedEvents: z.number().int().min(0),
});
export type TrialEvidence = z.infer<typeof trialSchema>;

const sideSchema = z.object({
  passes: z.number().int().min(0),
  graded: z.number().int().min(0),
  /** The trial shown: the first failing one where the side failed, else the first. Null when the case did not run on this side. */
  shown: trialSchema.nullable(),
});
export type SideEvidence = z.infer<typeof sideSchema>;

export const caseEvidenceSchema = z.object({
  caseId: z.string(),
  kind: z.enum(['fix', 'regression', 'flaky']),
  /** The case as the agent saw it (grading fields removed), clipped. */
  input: z.unknown(),
  expected: z.unknown(),
  baseline: sideSchema,
  candidate: sideSchema,
});
export type CaseEvidence = z.infer<typeof caseEvidenceSchema>;

const runStatsSchema = z.object({
  runId: z.string(),
  passRate: z.number(),
  passHat: z.record(z.string(), z.number()),
  passAt: z.record(z.string(), z.number()),
  cases: z.number().int(),
  trials: z.number().int(),
});
export type RunStatsEvidence = z.infer<typeof runStatsSchema>;

export const caseEvidenceDocumentSchema = z.object({
  schema: z.literal(CASE_EVIDENCE_SCHEMA),
  runs: z.object({ baseline: runStatsSchema.nullable(), candidate: runStatsSchema.nullable() }),
  cases: z.array(caseEvidenceSchema),
  /** `git diff` of the blueprint folder from the candidate's base to the candidate, clipped. */
  diff: z.string(),
  diffTruncated: z.boolean(),
});
export type CaseEvidenceDocument = z.infer<typeof caseEvidenceDocumentSchema>;

export function parseCaseEvidence(text: string, file: string): CaseEvidenceDocument {
  return parseJsonDocument(text, file, caseEvidenceDocumentSchema, 'HISTORY_INVALID');
}

/** The runs section alone (what the line's index shows); the flipped cases are left unchecked and unread. */
const caseEvidenceRunsSchema = caseEvidenceDocumentSchema.pick({ schema: true, runs: true });
export type CaseEvidenceRuns = z.infer<typeof caseEvidenceRunsSchema>;

export function parseCaseEvidenceRuns(text: string, file: string): CaseEvidenceRuns {
  return parseJsonDocument(text, file, caseEvidenceRunsSchema, 'HISTORY_INVALID');
}
