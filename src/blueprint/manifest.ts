import { z } from '../domain/zod.ts';

const relativeFile = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), {
    message: 'expected a path inside the blueprint folder',
  });

const toolLoop = z
  .object({
    $schema: z.string().optional(),
    runtime: z.literal('tool-loop'),
    description: z.string().optional(),
    prompt: relativeFile.default('system.hbs').describe('Handlebars template of the system prompt.'),
    tools: z.array(relativeFile).default([]).describe('Tool wrapper modules, each exporting { name, description, inputSchema, run }.'),
    maxSteps: z.number().int().min(1).max(200).default(10).describe('Model turns allowed per case before the step budget is exhausted.'),
    maxTokens: z.number().int().min(16).max(64_000).default(1024),
    temperature: z.number().min(0).max(1).optional(),
  })
  .strict();

const command = z
  .object({
    $schema: z.string().optional(),
    runtime: z.literal('command'),
    description: z.string().optional(),
    command: z.array(z.string().min(1)).min(1).describe('Executable and arguments, run in the blueprint folder.'),
    timeoutMs: z.number().int().min(100).default(120_000),
  })
  .strict();

export const blueprintManifestSchema = z.discriminatedUnion('runtime', [toolLoop, command]);

export type BlueprintManifest = z.output<typeof blueprintManifestSchema>;
export type ToolLoopManifest = Extract<BlueprintManifest, { runtime: 'tool-loop' }>;
export type CommandManifest = Extract<BlueprintManifest, { runtime: 'command' }>;
export type RuntimeKind = BlueprintManifest['runtime'];
