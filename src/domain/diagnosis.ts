import { z } from './zod.ts';

const caseIds = z.array(z.string());

/**
 * The diagnosis report D_t: the engineering spec for the next RC. A generated diagnosis
 * script must print exactly this shape; anything else is rejected and repaired or replaced
 * by the built-in script.
 */
export const diagnosisReportSchema = z.object({
  summary: z.string(),
  totals: z.object({
    records: z.number().int().nonnegative(),
    failing: z.number().int().nonnegative(),
    infraErrors: z.number().int().nonnegative(),
  }),
  dominantSymptoms: z.array(
    z.object({
      label: z.string(),
      count: z.number().int().nonnegative(),
      share: z.number().min(0).max(1),
      description: z.string(),
    }),
  ),
  patterns: z.array(
    z.object({
      label: z.string(),
      pattern: z.string(),
      count: z.number().int().nonnegative(),
      caseIds,
    }),
  ),
  representativeCases: z.array(
    z.object({ caseId: z.string(), label: z.string(), description: z.string() }),
  ),
  affectedSurface: z.array(z.object({ label: z.string(), caseIds })),
});

export type DiagnosisReport = z.infer<typeof diagnosisReportSchema>;
