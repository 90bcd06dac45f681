import { keyPath } from './schema-issue.ts';
import { LABEL_PATTERN } from './symptoms.ts';
import { z } from './zod.ts';

const caseIds = z.array(z.string());
const label = z.string();

/**
 * The diagnosis report D_t: the engineering spec for the next RC. A generated diagnosis
 * script must print exactly this shape. Unknown fields are refused (the script goes back for
 * repair) rather than dropped on the way to the synthesizer: observations that fit no field
 * belong in `notes`, which the synthesizer reads.
 */
export const diagnosisReportSchema = z.strictObject({
  summary: z.string(),
  totals: z.strictObject({
    records: z.number().int().nonnegative(),
    failing: z.number().int().nonnegative(),
    infraErrors: z.number().int().nonnegative(),
  }),
  dominantSymptoms: z.array(
    z.strictObject({
      label,
      count: z.number().int().nonnegative(),
      share: z.number().min(0).max(1),
      description: z.string(),
      /** Finer patterns the diagnostician found under this label; never a label of their own. */
      subPatterns: z
        .array(
          z.strictObject({
            name: z.string().regex(LABEL_PATTERN, 'a sub-pattern name is snake_case, 2 to 64 characters'),
            description: z.string(),
            caseIds,
          }),
        )
        .optional(),
    }),
  ),
  patterns: z.array(
    z.strictObject({
      label,
      pattern: z.string(),
      count: z.number().int().nonnegative(),
      caseIds,
    }),
  ),
  representativeCases: z.array(z.strictObject({ caseId: z.string(), label, description: z.string() })),
  affectedSurface: z.array(z.strictObject({ label, caseIds })),
  notes: z.array(z.string()).optional(),
});

export type DiagnosisReport = z.infer<typeof diagnosisReportSchema>;

/**
 * Every label of a report that is not in the vocabulary, one line each with where it is. A
 * finer pattern belongs in a dominant symptom's `subPatterns`, under a vocabulary label.
 */
export function vocabularyProblems(report: DiagnosisReport, vocabulary: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const check = (value: string, path: readonly PropertyKey[]) => {
    if (!vocabulary.has(value)) problems.push(`${keyPath(path)}: "${value}" is not a symptom label of the taxonomy`);
  };
  report.dominantSymptoms.forEach((s, i) => check(s.label, ['dominantSymptoms', i, 'label']));
  report.patterns.forEach((p, i) => check(p.label, ['patterns', i, 'label']));
  report.representativeCases.forEach((c, i) => check(c.label, ['representativeCases', i, 'label']));
  report.affectedSurface.forEach((a, i) => check(a.label, ['affectedSurface', i, 'label']));
  return problems;
}

/** The case ids a report lists under any of the labels (the scope of a change that targets them). */
export function affectedCases(report: DiagnosisReport, labels: readonly string[]): string[] {
  const ids = new Set(report.affectedSurface.filter((a) => labels.includes(a.label)).flatMap((a) => a.caseIds));
  return [...ids].sort();
}

/**
 * The report read through label aliases decided after it was written (a merge the
 * diagnostician proposed with it): every label as it now reads, symptoms that became one
 * merged (counts and shares added, sub-patterns and cases joined). The report recorded in git
 * stays as written; this is what the synthesizer reads.
 */
export function reportThroughAliases(report: DiagnosisReport, canonical: (label: string) => string): DiagnosisReport {
  const dominant = new Map<string, DiagnosisReport['dominantSymptoms'][number]>();
  for (const symptom of report.dominantSymptoms) {
    const label = canonical(symptom.label);
    const known = dominant.get(label);
    if (!known) dominant.set(label, { ...symptom, label });
    else {
      const subPatterns = [...(known.subPatterns ?? []), ...(symptom.subPatterns ?? [])];
      dominant.set(label, {
        ...known,
        count: known.count + symptom.count,
        share: Math.min(1, known.share + symptom.share),
        description: symptom.label === label ? symptom.description : known.description,
        ...(subPatterns.length > 0 ? { subPatterns } : {}),
      });
    }
  }
  const surface = new Map<string, Set<string>>();
  for (const entry of report.affectedSurface) {
    const label = canonical(entry.label);
    surface.set(label, new Set([...(surface.get(label) ?? []), ...entry.caseIds]));
  }
  return {
    ...report,
    dominantSymptoms: [...dominant.values()],
    patterns: report.patterns.map((p) => ({ ...p, label: canonical(p.label) })),
    representativeCases: report.representativeCases.map((c) => ({ ...c, label: canonical(c.label) })),
    affectedSurface: [...surface].map(([label, ids]) => ({ label, caseIds: [...ids].sort() })),
  };
}
