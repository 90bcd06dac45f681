import { z } from './zod.ts';

const dotPath = z.string().regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'expected a dot path such as "expected.amount"');

/** Why a pattern and flags do not make a regular expression, or null when they do. */
export function regexProblem(pattern: string, flags = ''): string | null {
  const repeated = [...flags].find((flag, i) => flags.indexOf(flag) !== i);
  if (repeated) return `the flag "${repeated}" is given twice`;
  try {
    new RegExp(pattern, flags);
    return null;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return `not a valid regular expression: ${error.message}`;
  }
}

/** Why a JSON Schema cannot be used to check outputs, or null when it can. */
function jsonSchemaProblem(schema: Record<string, unknown>): string | null {
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return null;
  } catch (error) {
    // zod throws plain Errors (an unsupported type, a missing $ref) and SyntaxErrors (a pattern).
    if (!(error instanceof Error)) throw error;
    return `not a usable JSON Schema: ${error.message}`;
  }
}

/** Scorer kinds: deterministic, non-LLM checks. One handler each (src/stages/score). */
export const scorerConfigSchema = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('state') })
    .strict()
    .describe("The environment's final state equals the state the case's expected actions produce, and every expected output appears in the agent's messages."),
  z
    .object({ kind: z.literal('schema'), schema: z.record(z.string(), z.unknown()), path: dotPath.optional() })
    .strict()
    .superRefine((s, ctx) => {
      const problem = jsonSchemaProblem(s.schema);
      if (problem) ctx.addIssue({ code: 'custom', path: ['schema'], message: problem });
    }),
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
    })
    .superRefine((s, ctx) => {
      // Checked when the task loads, so a bad pattern is bad input (exit 2), never a crash mid-run.
      const problem = regexProblem(s.pattern ?? '', s.flags);
      if (problem) ctx.addIssue({ code: 'custom', path: [problem.startsWith('the flag') ? 'flags' : 'pattern'], message: problem });
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
      kind: z.literal('cost'),
      weights: z
        .object({ steps: z.number().min(0), repeats: z.number().min(0), noops: z.number().min(0) })
        .partial()
        .strict()
        .optional()
        .describe('R_cost = steps·w + repeats·w + noops·w; the paper (AutoEvolve) uses 0.01, 0.05 and 0.1.'),
      max: z.number().min(0).optional().describe('Fail a case-trial whose R_cost is above this; without it the cost is measured, never decisive.'),
    })
    .strict()
    .describe("The trace's cost: steps, repeated identical tool calls, and tool calls that changed no state."),
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
    $schema: z.string().optional(),
    description: z.string().optional(),
    rubric: z.string().default('rubric.md'),
    environment: z.string().optional().describe('Module (TypeScript or JavaScript) exporting createEnvironment(case).'),
    scorers: z.array(scorerConfigSchema).default([]),
  })
  .strict();

export type TaskManifest = z.output<typeof taskManifestSchema>;
