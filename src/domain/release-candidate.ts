import { LABEL_PATTERN } from './symptoms.ts';
import { z } from './zod.ts';

export const editTypes = ['remove', 'revise', 'add'] as const;
export type EditType = (typeof editTypes)[number];

/**
 * A whole-file edit. `content: null` deletes the file. Paths are relative to the workspace root.
 * A typed edit (EvoMAC's updating operator) also says what it does to which component
 * ("tool:get_order", "section:…", "partial:…", "member:…"): the scope check holds it to that.
 */
export const fileEditSchema = z.object({
  path: z.string().min(1),
  content: z.string().nullable(),
  type: z.enum(editTypes).optional(),
  component: z.string().min(1).optional(),
});
export type FileEdit = z.infer<typeof fileEditSchema>;

/** Which symptoms the RC targets and why; it documents alignment, it does not claim causality. */
export const typedChangeSchema = z.object({ type: z.enum(editTypes), component: z.string(), paths: z.array(z.string()) });
export type TypedChange = z.infer<typeof typedChangeSchema>;

/** Typed edits grouped by type, for the reports and the log. */
export function editsByType(changes: readonly TypedChange[]): Record<EditType, string[]> {
  const grouped: Record<EditType, string[]> = { remove: [], revise: [], add: [] };
  for (const change of changes) if (!grouped[change.type].includes(change.component)) grouped[change.type].push(change.component);
  return grouped;
}

export const changeIntentSchema = z.object({
  targets: z.array(z.string()).min(1),
  rationale: z.string().min(1),
  /** The RC's typed edits, each naming its component (absent for untyped or hand-made candidates). */
  edits: z.array(typedChangeSchema).optional(),
});
export type ChangeIntent = z.infer<typeof changeIntentSchema>;

export const releaseCandidateSchema = z.object({
  edits: z.array(fileEditSchema),
  intent: changeIntentSchema,
});
export type ReleaseCandidate = z.infer<typeof releaseCandidateSchema>;

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A path inside the blueprint folder, as a pattern JSON Schema can state: `<root>/` then one or
 * more segments, none of them "." or "..", no backslash (the edit check, edits.ts, says the same
 * in code and stays the last word).
 */
export function blueprintPathPattern(blueprintRoot: string): RegExp {
  return new RegExp(`^(?!.*(?:^|/)\\.{1,2}(?:/|$))${escapeRegex(blueprintRoot)}/(?:[^/\\\\]+/)*[^/\\\\]+$`);
}

/**
 * The RC schema a synthesizer answers with: its targets are an enum of the symptom vocabulary,
 * so a label the critic never gave (and the gate's hit rate could never count) is refused
 * where it is written, and every edit's path lies in the blueprint folder. Without a vocabulary
 * (nothing failed with a label yet) a target is any label-shaped name: the prompt says so.
 */
export function releaseCandidateSchemaFor(vocabulary: readonly string[], blueprintRoot: string) {
  const [first, ...rest] = vocabulary;
  const target = first === undefined ? z.string().regex(LABEL_PATTERN, 'a symptom label is snake_case, 2 to 64 characters') : z.enum([first, ...rest]);
  return z.object({
    edits: z.array(fileEditSchema.extend({ path: z.string().regex(blueprintPathPattern(blueprintRoot), `a path inside ${blueprintRoot}/ (no "." or ".." segment)`) })),
    intent: z.object({
      targets: z.array(target).min(1),
      rationale: z.string().min(1),
      edits: z.array(typedChangeSchema).optional(),
    }),
  });
}

/**
 * The intent a commit message states: a `Targets: a, b` line (symptom labels) in its body,
 * with the message's subject and other body lines as the rationale. Null without such a line.
 */
export function intentFromCommitMessage(message: string): ChangeIntent | null {
  const lines = message.replace(/\r\n?/g, '\n').split('\n');
  const line = lines.find((l) => /^targets:\s*\S/i.test(l.trim()));
  if (!line) return null;
  const targets = line.trim().replace(/^targets:\s*/i, '').split(',').map((t) => t.trim()).filter(Boolean);
  const rationale = lines.filter((l) => l !== line).join(' ').replace(/\s+/g, ' ').trim() || 'stated in the commit message';
  return targets.length > 0 ? { targets, rationale } : null;
}
