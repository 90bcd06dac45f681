import { z } from '../domain/zod.ts';

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

export const blueprintManifestSchema = z.discriminatedUnion('runtime', [toolLoop, command]);

export type BlueprintManifest = z.output<typeof blueprintManifestSchema>;
export type ToolLoopManifest = Extract<BlueprintManifest, { runtime: 'tool-loop' }>;
export type CommandManifest = Extract<BlueprintManifest, { runtime: 'command' }>;
export type RuntimeKind = BlueprintManifest['runtime'];
