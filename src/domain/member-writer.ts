// What the member writer (the model role `discover` asks for new crew members, BOAD's meta
// agent) answers with: a member draft, or an orchestrator prompt for a chosen team. The shapes
// are checked here, once, for every engine: the Claude engine's forced tool uses them (an
// answer that breaks a rule gets one repair turn), and the pipeline checks the mock's answers
// against the same rules.
import { CONTEXT_VIEW, memberName, REQUEST_VIEW } from './blueprint-manifest.ts';
import { z } from './zod.ts';

export const memberDraftSchema = z.object({
  name: memberName.describe('The member\'s name: the tool name the orchestrator calls. New: not a name of the archive.'),
  description: z.string().min(1).max(600).describe('What the member does and what it answers: the orchestrator reads it as the tool description.'),
  prompt: z
    .string()
    .min(1)
    .max(8000)
    .describe("Handlebars template of the member's system prompt; it may use {{member.name}}, {{member.description}} and {{#each tools}}{{name}}: {{description}}{{/each}}."),
  tools: z.array(z.string().min(1)).describe('Tool wrapper files of the blueprint the member may call (paths relative to the blueprint folder, as the list gives them).'),
  sees: z.array(z.string().min(1)).min(1).describe(`What of the conversation it receives: "${CONTEXT_VIEW}", "${REQUEST_VIEW}", or an archive member's name (that member's results).`),
  maxSteps: z.number().int().min(1).max(50).describe('Model turns allowed per call.'),
  maxCalls: z.number().int().min(1).max(50).describe('Calls allowed per conversation.'),
  rationale: z.string().min(1).max(1000).describe('Why this member: the step of the task it takes over, and why no archive member does it.'),
});
export type MemberDraft = z.infer<typeof memberDraftSchema>;

export const orchestratorPromptSchema = z.object({
  prompt: z.string().min(1).max(16_000).describe("Handlebars template of the orchestrator's system prompt for this team."),
  rationale: z.string().min(1).max(1000),
});
export type OrchestratorPrompt = z.infer<typeof orchestratorPromptSchema>;

/** What a draft may name: the archive it joins, the blueprint's tool files, and (warm-up) the name it must keep. */
export interface DraftRules {
  readonly archive: readonly string[];
  readonly toolFiles: readonly string[];
  /** A warm-up revision keeps the draft's name; null for a new member. */
  readonly keepName: string | null;
}

/** Every rule a draft breaks, in words a model can act on (empty when it is fine). */
export function draftProblems(draft: MemberDraft, rules: DraftRules): string[] {
  const problems: string[] = [];
  if (rules.keepName !== null && draft.name !== rules.keepName) problems.push(`name: a warm-up revision keeps the name "${rules.keepName}"`);
  if (rules.keepName === null && rules.archive.includes(draft.name)) problems.push(`name: "${draft.name}" is already in the archive (${rules.archive.join(', ')}); choose a new name`);
  for (const tool of draft.tools) {
    if (!rules.toolFiles.includes(tool)) problems.push(`tools: "${tool}" is not a tool file of the blueprint (${rules.toolFiles.join(', ') || 'it has none'})`);
  }
  if (new Set(draft.tools).size !== draft.tools.length) problems.push('tools: a tool file is listed twice');
  for (const view of draft.sees) {
    if (view === CONTEXT_VIEW || view === REQUEST_VIEW) continue;
    if (view === draft.name) problems.push('sees: a member sees its own results already');
    else if (!rules.archive.includes(view)) problems.push(`sees: "${view}" is neither "${CONTEXT_VIEW}", "${REQUEST_VIEW}" nor an archive member (${rules.archive.join(', ')})`);
  }
  return problems;
}
