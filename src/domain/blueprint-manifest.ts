import { ORCHESTRATOR } from './trace.ts';
import { z } from './zod.ts';

export { ORCHESTRATOR };

const relativeFile = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), {
    message: 'expected a path inside the blueprint folder',
  });

const toolLoop = z
  .object({
    $schema: z.string().optional().describe('Path of blueprint.schema.json, for editors.'),
    runtime: z.literal('tool-loop').describe('"tool-loop": agentdevel runs the model\'s tool-use loop with this prompt and these tools.'),
    description: z.string().optional().describe('One line on what this agent is, for people.'),
    prompt: relativeFile.default('system.hbs').describe('Handlebars template of the system prompt.'),
    tools: z.array(relativeFile).default([]).describe('Tool wrapper modules, each exporting { name, description, inputSchema, run }.'),
    maxSteps: z.number().int().min(1).max(200).default(10).describe('Model turns allowed per case (1 to 200) before the step budget is exhausted.'),
    maxTokens: z.number().int().min(16).max(64_000).default(1024).describe('Output tokens allowed per model turn (16 to 64000).'),
    temperature: z.number().min(0).max(1).optional().describe('Sampling temperature (0 to 1).'),
  })
  .strict();

const command = z
  .object({
    $schema: z.string().optional().describe('Path of blueprint.schema.json, for editors.'),
    runtime: z.literal('command').describe('"command": any executable; it reads the case as JSON on stdin and writes trace events as JSON lines on stdout.'),
    description: z.string().optional().describe('One line on what this agent is, for people.'),
    command: z.array(z.string().min(1)).min(1).describe('Executable and arguments, run in the blueprint folder.'),
    timeoutMs: z.number().int().min(100).default(120_000).describe('Milliseconds a case-trial may take (at least 100) before the process group is killed.'),
  })
  .strict();

/** What a crew member receives of the conversation (BOAD: the orchestrator's context argument only). */
export const CONTEXT_VIEW = 'context';
/** The user's messages so far. */
export const REQUEST_VIEW = 'request';

export const memberName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,47}$/, 'a member name is lower case letters, digits, "-" or "_" (it is the tool name the orchestrator calls)');

const crewMember = z
  .object({
    name: memberName,
    description: z.string().min(1).describe('What the member does: the orchestrator reads it as the tool description, the helpfulness judge reads it too.'),
    prompt: relativeFile.describe("Handlebars template of the member's system prompt."),
    tools: z.array(relativeFile).default([]).describe("The member's tool wrappers (a subset of the crew's)."),
    sees: z
      .array(z.string().min(1))
      .min(1)
      .default([CONTEXT_VIEW])
      .describe('What of the conversation the member receives: "context" (the orchestrator\'s context argument), "request" (the user\'s messages), or a member\'s name (that member\'s results in this case).'),
    maxSteps: z.number().int().min(1).max(50).default(4).describe('Model turns allowed per call of this member.'),
    maxCalls: z.number().int().min(1).max(50).default(3).describe('Calls of this member allowed per case-trial.'),
  })
  .strict();

const crew = z
  .object({
    $schema: z.string().optional(),
    runtime: z.literal('crew'),
    description: z.string().optional(),
    orchestrator: z
      .object({
        prompt: relativeFile.default('system.hbs').describe("Handlebars template of the orchestrator's system prompt."),
        tools: z.array(relativeFile).default([]).describe('Tool wrappers the orchestrator calls itself, beside its members.'),
        maxSteps: z.number().int().min(1).max(200).default(10).describe('Orchestrator turns allowed per case before the step budget is exhausted.'),
      })
      .strict(),
    members: z.array(crewMember).min(1),
    maxTokens: z.number().int().min(16).max(64_000).default(1024),
    temperature: z.number().min(0).max(1).optional(),
  })
  .strict()
  .superRefine((manifest, context) => {
    const names = manifest.members.map((m) => m.name);
    manifest.members.forEach((member, index) => {
      if (member.name === ORCHESTRATOR) context.addIssue({ code: 'custom', path: ['members', index, 'name'], message: `"${ORCHESTRATOR}" is the orchestrator's name` });
      if (names.indexOf(member.name) !== index) context.addIssue({ code: 'custom', path: ['members', index, 'name'], message: `a second member named "${member.name}"` });
      member.sees.forEach((view, at) => {
        if (view === CONTEXT_VIEW || view === REQUEST_VIEW) return;
        if (view === member.name) context.addIssue({ code: 'custom', path: ['members', index, 'sees', at], message: 'a member sees its own results already' });
        else if (!names.includes(view)) context.addIssue({ code: 'custom', path: ['members', index, 'sees', at], message: `expected "${CONTEXT_VIEW}", "${REQUEST_VIEW}" or a member's name (${names.join(', ')})` });
      });
    });
  });

export const blueprintManifestSchema = z.discriminatedUnion('runtime', [toolLoop, command, crew]);

export type BlueprintManifest = z.output<typeof blueprintManifestSchema>;
export type ToolLoopManifest = Extract<BlueprintManifest, { runtime: 'tool-loop' }>;
export type CommandManifest = Extract<BlueprintManifest, { runtime: 'command' }>;
export type CrewManifest = Extract<BlueprintManifest, { runtime: 'crew' }>;
export type CrewMember = CrewManifest['members'][number];
export type RuntimeKind = BlueprintManifest['runtime'];
