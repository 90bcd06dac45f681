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
  /**
   * The symptom labels the change means to fix: the gate then asks for fixes and counts its hit
   * rate. Empty when the intent is a rationale only (a hand-made candidate's commit message
   * without a `Targets:` line): the gate then judges its flips alone.
   */
  targets: z.array(z.string()),
  rationale: z.string().min(1),
  /** The RC's typed edits, each naming its component (absent for candidates recorded before edits were typed). */
  edits: z.array(typedChangeSchema).optional(),
  /** True when the types were inferred from the diff (a person's change, which states none), not given by its author. */
  editsInferred: z.boolean().optional(),
});
export type ChangeIntent = z.infer<typeof changeIntentSchema>;

/** A synthesized RC always names what it targets (its hit rate is part of its gate). */
const targetedIntentSchema = changeIntentSchema.extend({ targets: z.array(z.string()).min(1) });

export const releaseCandidateSchema = z.object({
  edits: z.array(fileEditSchema),
  intent: targetedIntentSchema,
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

/** The components a typed edit may name, per runtime (see blueprint-components.ts): the pattern and its words. */
const COMPONENT_IDS: Readonly<Record<'tool-loop' | 'command' | 'crew', { readonly pattern: RegExp; readonly words: string }>> = {
  'tool-loop': { pattern: /^(agent|(tool|partial|section):\S.*)$/, words: '"agent", tool:NAME, partial:PATH or section:SLUG' },
  command: { pattern: /^(agent|partial:\S.*)$/, words: '"agent" or partial:PATH' },
  crew: { pattern: /^(orchestrator|(member|tool|partial|section):\S.*)$/, words: '"orchestrator", member:NAME, tool:NAME, partial:PATH or section:SLUG' },
};

/**
 * An edit as the synthesizer writes it: typed, always. "An RC's edits are typed remove, revise or
 * add, and each names the component": the schema says so, with the components the blueprint's
 * runtime has, so a model that answers from the schema alone types every edit, and the scope
 * check holds each to its word.
 */
export function typedFileEditSchema(runtime: keyof typeof COMPONENT_IDS) {
  const { pattern, words } = COMPONENT_IDS[runtime];
  return z.object({
    path: z.string().min(1),
    content: z.string().nullable(),
    type: z.enum(editTypes).describe('What the edit does to the component it names: remove it, revise it, or add it.'),
    component: z.string().regex(pattern, `a component is ${words}`).describe(`The one component the edit changes: ${words} (the <components> list).`),
  });
}

/**
 * The RC schema a synthesizer answers with: every edit typed, and the targets an enum of the
 * symptom vocabulary, so a label the critic never gave (and the gate's hit rate could never
 * count) is refused where it is written, and every edit's path lies in the blueprint folder.
 * Without a vocabulary (nothing failed with a label yet) a target is any label-shaped name: the
 * prompt says so.
 */
export function releaseCandidateSchemaFor(vocabulary: readonly string[], runtime: keyof typeof COMPONENT_IDS, blueprintRoot: string) {
  const [first, ...rest] = vocabulary;
  const target = first === undefined ? z.string().regex(LABEL_PATTERN, 'a symptom label is snake_case, 2 to 64 characters') : z.enum([first, ...rest]);
  return z.object({
    // Every edit's path lies in the blueprint folder: the schema says so where JSON Schema can.
    edits: z.array(typedFileEditSchema(runtime).extend({ path: z.string().regex(blueprintPathPattern(blueprintRoot), `a path inside ${blueprintRoot}/ (no "." or ".." segment)`) })),
    intent: z.object({
      targets: z.array(target).min(1),
      rationale: z.string().min(1),
    }),
  });
}

/** An intent in one line: its targets, then its rationale ("missing_confirmation: Ask before cancelling"). */
export function intentText(intent: Pick<ChangeIntent, 'targets' | 'rationale'>): string {
  return intent.targets.length > 0 ? `${intent.targets.join(', ')}: ${intent.rationale}` : intent.rationale;
}

/** Trailers git tools add, which say who, not why. */
const TRAILER = /^(signed-off-by|co-authored-by|reviewed-by|change-id):/i;

/**
 * The intent a commit message states: its subject and body are the rationale, and a
 * `Targets: a, b` line in it names the symptom labels it means to fix (none without one). Null
 * for an empty message.
 */
export function intentFromCommitMessage(message: string): ChangeIntent | null {
  const lines = message.replace(/\r\n?/g, '\n').split('\n');
  const targetLine = lines.find((l) => /^targets:\s*\S/i.test(l.trim()));
  const targets = targetLine ? targetLine.trim().replace(/^targets:\s*/i, '').split(',').map((t) => t.trim()).filter(Boolean) : [];
  const said = lines.filter((l) => l !== targetLine && !TRAILER.test(l.trim()));
  while (said[0]?.trim() === '') said.shift();
  const blank = said.findIndex((l) => l.trim() === '');
  const oneLine = (text: readonly string[]) => text.join(' ').replace(/\s+/g, ' ').trim();
  const subject = oneLine(blank === -1 ? said : said.slice(0, blank));
  const body = blank === -1 ? '' : oneLine(said.slice(blank + 1));
  const rationale = subject && body ? `${subject}${/[.!?:]$/.test(subject) ? '' : '.'} ${body}` : subject || body;
  if (!rationale) return targets.length > 0 ? { targets, rationale: 'stated in the commit message' } : null;
  return { targets, rationale };
}
