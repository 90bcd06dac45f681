import { z } from '../domain/zod.ts';

const dotPath = z.string().regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'expected a dot path such as "expected.amount"');

/** Scorer kinds: deterministic, non-LLM checks. One handler each (src/stages/score). */
export const scorerConfigSchema = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('state') })
    .strict()
    .describe("The environment's final state equals the state the case's expected actions produce, and every expected output appears in the agent's messages."),
  z
    .object({ kind: z.literal('schema'), schema: z.record(z.string(), z.unknown()), path: dotPath.optional() })
    .strict(),
  z
    .object({
      kind: z.literal('regex'),
      pattern: z.string().optional(),
      patternFromCase: dotPath.optional(),
      flags: z.string().regex(/^[dgimsuy]*$/).optional(),
      path: dotPath.optional(),
      expect: z.enum(['match', 'no-match']).default('match'),
    })
    .strict()
    .refine((s) => (s.pattern === undefined) !== (s.patternFromCase === undefined), {
      message: 'give exactly one of "pattern" and "patternFromCase"',
    }),
  z
    .object({
      kind: z.literal('numeric'),
      path: dotPath,
      expected: z.number().optional(),
      expectedFromCase: dotPath.optional(),
      tolerance: z.number().min(0).default(0),
    })
    .strict()
    .refine((s) => (s.expected === undefined) !== (s.expectedFromCase === undefined), {
      message: 'give exactly one of "expected" and "expectedFromCase"',
    }),
  z
    .object({
      kind: z.literal('script'),
      command: z.array(z.string().min(1)).min(1),
      timeoutMs: z.number().int().min(100).default(10_000),
    })
    .strict(),
]);

export type ScorerConfig = z.output<typeof scorerConfigSchema>;
export type ScorerKind = ScorerConfig['kind'];

export const taskManifestSchema = z
  .object({
    description: z.string().optional(),
    rubric: z.string().default('rubric.md'),
    environment: z.string().optional().describe('Module (TypeScript or JavaScript) exporting createEnvironment(case).'),
    scorers: z.array(scorerConfigSchema).default([]),
  })
  .strict();

export type TaskManifest = z.output<typeof taskManifestSchema>;
