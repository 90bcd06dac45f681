// Gradient records (EvoMAC's "textual gradient", bound to evidence): per blueprint component,
// what it fulfilled, which errors it introduced, which sub-tasks are missing, and the evidence
// for each. Written to git once per iteration (refs/agentdevel/gradient/<bp>/iter-NNN,
// gradient.json). Every claim carries pointers into the store: a trace event of a record, or a
// scorer or requirement verdict of a record. A claim whose pointers do not resolve is dropped
// and counted, never kept.
import { parseJsonDocument } from './json-document.ts';
import { z } from './zod.ts';

export const GRADIENT_SCHEMA = 'agentdevel/gradient@1';

export const componentKinds = ['member', 'tool', 'partial', 'section'] as const;
export type ComponentKind = (typeof componentKinds)[number];

/** A pointer to executed evidence in the store: one event of a record's trace, or one of its verdicts. */
export const evidencePointerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('trace_event'), runId: z.string(), caseId: z.string(), trial: z.number().int().min(0), event: z.number().int().min(0) }),
  z.object({ kind: z.literal('scorer'), runId: z.string(), caseId: z.string(), trial: z.number().int().min(0) }),
  z.object({ kind: z.literal('requirement'), runId: z.string(), caseId: z.string(), trial: z.number().int().min(0), requirement: z.string() }),
]);
export type EvidencePointer = z.infer<typeof evidencePointerSchema>;

const verdictSchema = z.object({ caseId: z.string(), trial: z.number().int(), source: z.enum(['scorer', 'requirement']), id: z.string(), pass: z.boolean() });

/** A claim a model phrased over the evidence, kept because every pointer it cites resolves. */
export const gradientClaimSchema = z.object({
  component: z.string(),
  field: z.enum(['fulfilled', 'introducedError', 'missing']),
  text: z.string().min(1),
  pointers: z.array(evidencePointerSchema),
});
export type GradientClaim = z.infer<typeof gradientClaimSchema>;

export const componentRecordSchema = z.object({
  /** "<kind>:<name>", e.g. tool:get_order, section:1-you-are-the-customer-service, member:planner. */
  component: z.string(),
  kind: z.enum(componentKinds),
  /** The file it lives in, relative to the workspace (null for a member named only by traces). */
  path: z.string().nullable(),
  /** Requirement ids that held in case-trials the component took part in without an error of its own. */
  fulfilled: z.array(z.string()),
  introducedErrors: z.array(z.object({ caseId: z.string(), trial: z.number().int(), message: z.string(), pointer: evidencePointerSchema })),
  /** Sub-tasks no component did: a failed requirement with no component error to explain it. */
  missing: z.array(z.object({ text: z.string(), caseIds: z.array(z.string()), pointers: z.array(evidencePointerSchema) })),
  evidence: z.object({ caseIds: z.array(z.string()), pointers: z.array(evidencePointerSchema), verdicts: z.array(verdictSchema) }),
  /** Model-phrased claims that survived the evidence check. */
  claims: z.array(gradientClaimSchema),
});
export type ComponentRecord = z.infer<typeof componentRecordSchema>;

export const gradientDocumentSchema = z.object({
  schema: z.literal(GRADIENT_SCHEMA),
  iteration: z.number().int(),
  blueprint: z.string(),
  release: z.string(),
  runId: z.string(),
  components: z.array(componentRecordSchema),
  /** Claims dropped because a pointer did not resolve (or none was given). */
  dropped: z.object({ count: z.number().int().min(0), claims: z.array(z.object({ component: z.string(), text: z.string(), reason: z.string() })) }),
});
export type GradientDocument = z.infer<typeof gradientDocumentSchema>;

export const GRADIENT_FILE = 'gradient.json';

export function parseGradientDocument(text: string, file: string): GradientDocument {
  return parseJsonDocument(text, file, gradientDocumentSchema, 'HISTORY_INVALID');
}

export function pointerText(pointer: EvidencePointer): string {
  const at = `${pointer.runId}/${pointer.caseId}#${pointer.trial}`;
  switch (pointer.kind) {
    case 'trace_event':
      return `${at} event ${pointer.event}`;
    case 'scorer':
      return `${at} scorer`;
    case 'requirement':
      return `${at} requirement ${pointer.requirement}`;
    default: {
      const exhaustive: never = pointer;
      return exhaustive;
    }
  }
}
