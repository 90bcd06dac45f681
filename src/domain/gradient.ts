// Gradient records (EvoMAC's "textual gradient", bound to evidence): per blueprint component
// (see blueprint-components.ts), what it fulfilled (where it contributed), which errors it introduced, which sub-tasks are missing, and the evidence
// for each. Written to git once per iteration (refs/agentdevel/gradient/<bp>/iter-NNN,
// gradient.json). Every claim carries pointers into the store: a trace event of a record, or a
// scorer or requirement verdict of a record. A claim whose pointers do not resolve is dropped
// and counted, never kept.
import { blueprintComponentKinds, type BlueprintComponentKind } from './blueprint-components.ts';
import { parseJsonDocument } from './json-document.ts';
import { z } from './zod.ts';

export const GRADIENT_SCHEMA = 'agentdevel/gradient@2';
/** @1 had no agent or orchestrator records and no contributions (its `fulfilled` rested on taking part); it parses with contributions empty. */
const GRADIENT_SCHEMAS = ['agentdevel/gradient@1', GRADIENT_SCHEMA] as const;

export const componentKinds = blueprintComponentKinds;
export type ComponentKind = BlueprintComponentKind;

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

/**
 * Why a component counts as having contributed to a case-trial: the helpfulness judge found one
 * of its calls helpful (judge); with no verdict, a call succeeded and what it returned was used
 * afterwards, or it changed the environment's state (result-used); the main agent wrote the
 * answer that was graded (final-answer).
 */
export const contributionBases = ['judge', 'result-used', 'final-answer'] as const;
export type ContributionBasis = (typeof contributionBases)[number];

export const componentRecordSchema = z.object({
  /** "agent", "orchestrator" or "<kind>:<name>", e.g. tool:get_order, section:you-are-the, member:lookup. */
  component: z.string(),
  kind: z.enum(componentKinds),
  /** Its main file, relative to the workspace (null for a member named only by traces). */
  path: z.string().nullable(),
  /** Requirement ids that held in case-trials the component contributed to (see contributions) without an error of its own. */
  fulfilled: z.array(z.string()),
  /** The case-trials it contributed to, each with the trace event that shows it: what `fulfilled` rests on. */
  contributions: z
    .array(z.object({ caseId: z.string(), trial: z.number().int(), basis: z.enum(contributionBases), pointer: evidencePointerSchema }))
    .default([]),
  introducedErrors: z.array(z.object({ caseId: z.string(), trial: z.number().int(), message: z.string(), pointer: evidencePointerSchema })),
  /** Sub-tasks no component did: a failed requirement with no component error to explain it. */
  missing: z.array(z.object({ text: z.string(), caseIds: z.array(z.string()), pointers: z.array(evidencePointerSchema) })),
  evidence: z.object({ caseIds: z.array(z.string()), pointers: z.array(evidencePointerSchema), verdicts: z.array(verdictSchema) }),
  /** Model-phrased claims that survived the evidence check. */
  claims: z.array(gradientClaimSchema),
});
export type ComponentRecord = z.infer<typeof componentRecordSchema>;

export const gradientDocumentSchema = z.object({
  schema: z.enum(GRADIENT_SCHEMAS),
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

/** What a decision's reports say of its iteration's gradient records: where they are, and what was dropped. */
export interface GradientSummary {
  readonly ref: string;
  readonly records: number;
  /** Model-phrased claims kept (their evidence resolved) and dropped (it did not), with the dropped ones. */
  readonly kept: number;
  readonly dropped: number;
  readonly droppedClaims: ReadonlyArray<{ readonly component: string; readonly text: string; readonly reason: string }>;
}

export function gradientSummary(document: GradientDocument, ref: string): GradientSummary {
  return {
    ref,
    records: document.components.length,
    kept: document.components.reduce((n, c) => n + c.claims.length, 0),
    dropped: document.dropped.count,
    droppedClaims: document.dropped.claims.map((c) => ({ ...c })),
  };
}
