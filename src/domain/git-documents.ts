// The documents agentdevel writes to git beside decision.json: flips.json and intent.json in a
// release folder, report.json and attempts.json in a diagnostics folder. Each has one versioned
// schema here, used by the writer (typed by it) and by every reader. Version 1 is the shape
// written before documents carried a `schema` key: readers accept it, so history already in git
// stays readable. A document that is neither is damaged history: an error naming the file and
// the key, never a silent null.
import { diagnosisReportSchema, type DiagnosisReport } from './diagnosis.ts';
import { AgentdevelError } from './errors.ts';
import { parseJsonDocument } from './json-document.ts';
import { labelMergeProposalSchema, type LabelMergeProposal } from './label-aliases.ts';
import { changeIntentSchema, type ChangeIntent } from './release-candidate.ts';
import { z, type ZodType } from './zod.ts';

const flipRowSchema = z.object({
  caseId: z.string(),
  symptom: z.string().nullable(),
  description: z.string().optional(),
  reason: z.string().nullable().optional(),
});
const flakyRowSchema = z.object({ caseId: z.string(), before: z.string(), after: z.string(), fresh: z.string(), counted: z.string() });
const flipsBody = { f2p: z.array(flipRowSchema), p2f: z.array(flipRowSchema), flaky: z.array(flakyRowSchema).default([]) };

export const FLIPS_SCHEMA = 'agentdevel/flips@2';
export const flipsDocumentSchema = z.object({ schema: z.literal(FLIPS_SCHEMA), ...flipsBody });
export type FlipsDocument = z.infer<typeof flipsDocumentSchema>;

export const INTENT_SCHEMA = 'agentdevel/intent@2';
/** The RC's change intent; null for an RC that stated none (version 1 was the intent itself, or `null`). */
export const intentDocumentSchema = z.object({ schema: z.literal(INTENT_SCHEMA), intent: changeIntentSchema.nullable() });
export type IntentDocument = z.infer<typeof intentDocumentSchema>;

/** Version 3 adds `labelMerges`: the merges of synonym labels the diagnostician proposed and the loop recorded as aliases. */
export const DIAGNOSIS_REPORT_SCHEMA = 'agentdevel/diagnosis-report@3';
export type DiagnosisReportDocument = { readonly schema: typeof DIAGNOSIS_REPORT_SCHEMA; readonly labelMerges: LabelMergeProposal[] } & DiagnosisReport;

export const ATTEMPTS_SCHEMA = 'agentdevel/attempts@2';
const attemptsBody = {
  source: z.enum(['generated', 'builtin']),
  attempts: z.array(z.object({ ok: z.boolean(), error: z.string().nullable() })),
};
export const attemptsDocumentSchema = z.object({ schema: z.literal(ATTEMPTS_SCHEMA), ...attemptsBody });
export type AttemptsDocument = z.infer<typeof attemptsDocumentSchema>;

/** The synthesizer's refused attempts of an iteration, each with what was wrong (its repairs); the first shape had no `schema`. */
export const SYNTHESIS_ATTEMPTS_SCHEMA = 'agentdevel/synthesis-attempts@2';
const synthesisAttemptsBody = { refused: z.array(z.string()) };
export const synthesisAttemptsDocumentSchema = z.object({ schema: z.literal(SYNTHESIS_ATTEMPTS_SCHEMA), ...synthesisAttemptsBody });
export type SynthesisAttemptsDocument = z.infer<typeof synthesisAttemptsDocumentSchema>;

export const flipsDocument = (body: Omit<FlipsDocument, 'schema'>): FlipsDocument => ({ schema: FLIPS_SCHEMA, ...body });
export const intentDocument = (intent: ChangeIntent | null): IntentDocument => ({ schema: INTENT_SCHEMA, intent });
export const diagnosisReportDocument = (report: DiagnosisReport, labelMerges: readonly LabelMergeProposal[] = []): DiagnosisReportDocument => ({ schema: DIAGNOSIS_REPORT_SCHEMA, ...report, labelMerges: [...labelMerges] });
export const attemptsDocument = (body: Omit<AttemptsDocument, 'schema'>): AttemptsDocument => ({ schema: ATTEMPTS_SCHEMA, ...body });
export const synthesisAttemptsDocument = (refused: readonly string[]): SynthesisAttemptsDocument => ({ schema: SYNTHESIS_ATTEMPTS_SCHEMA, refused: [...refused] });

/**
 * Reads a versioned document: `current` is the schema's name, `body` the shape without the
 * `schema` key (what version 1 was). Unknown versions and damaged text are HISTORY_INVALID.
 */
function readVersioned<T>(text: string, file: string, current: string | readonly string[], body: ZodType<T>): T {
  const { schema } = parseJsonDocument(text, file, z.object({ schema: z.string().optional() }).passthrough(), 'HISTORY_INVALID');
  const known = typeof current === 'string' ? [current] : current;
  if (schema !== undefined && !known.includes(schema)) {
    throw new AgentdevelError('HISTORY_INVALID', `${file}: schema "${schema}" is not one this agentdevel reads (it reads ${known.join(', ')} and the unversioned first shape)`, {
      location: { file, key: 'schema' },
    });
  }
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const { schema: _version, ...rest } = parsed;
  return parseJsonDocument(JSON.stringify(rest), file, body, 'HISTORY_INVALID');
}

// Readers return the document's content without its version: what every version says.
export function readFlipsDocument(text: string, file: string): Omit<FlipsDocument, 'schema'> {
  return readVersioned(text, file, FLIPS_SCHEMA, z.object(flipsBody));
}

export function readIntentDocument(text: string, file: string): ChangeIntent | null {
  if (text.trim() === 'null') return null; // version 1 of an RC without an intent
  const { schema } = parseJsonDocument(text, file, z.object({ schema: z.string().optional() }).passthrough(), 'HISTORY_INVALID');
  if (schema === undefined) return parseJsonDocument(text, file, changeIntentSchema, 'HISTORY_INVALID');
  return readVersioned(text, file, INTENT_SCHEMA, z.object({ intent: changeIntentSchema.nullable() })).intent;
}

/** A recorded diagnosis: its report, and the label merges recorded with it (none before version 3). */
export function readDiagnosisRecord(text: string, file: string): { readonly report: DiagnosisReport; readonly labelMerges: LabelMergeProposal[] } {
  const { labelMerges, ...report } = readVersioned(text, file, ['agentdevel/diagnosis-report@2', DIAGNOSIS_REPORT_SCHEMA], diagnosisReportSchema.extend({ labelMerges: z.array(labelMergeProposalSchema).default([]) }));
  return { report, labelMerges };
}

export function readDiagnosisReportDocument(text: string, file: string): DiagnosisReport {
  return readDiagnosisRecord(text, file).report;
}

export function readAttemptsDocument(text: string, file: string): Omit<AttemptsDocument, 'schema'> {
  return readVersioned(text, file, ATTEMPTS_SCHEMA, z.object(attemptsBody));
}

export function readSynthesisAttemptsDocument(text: string, file: string): Omit<SynthesisAttemptsDocument, 'schema'> {
  return readVersioned(text, file, SYNTHESIS_ATTEMPTS_SCHEMA, z.object(synthesisAttemptsBody));
}
