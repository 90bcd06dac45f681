// One symptom vocabulary for every role. The critic names symptoms (its taxonomy only grows);
// the diagnosis report groups failures under those names, and an RC's intent targets them. The
// gate's hit rate compares the critic's baseline labels with the targets, so a label coined by
// any other role could never be hit: the schemas of the diagnostician's report and the
// synthesizer's intent only accept labels from this vocabulary.
import type { CaseRecord } from './record.ts';

/** One entry of the symptom vocabulary: a label and what it means. */
export interface SymptomEntry {
  readonly label: string;
  readonly description: string;
}

/** A failing record without a critic verdict (the critic was unreachable; the scorer failed it). */
export const NO_VERDICT_LABEL = 'unlabelled';

/** The critic's stated label for a case the scorer failed but whose trace shows no visible symptom. */
export const UNEXPLAINED_FAILURE_LABEL = 'wrong_outcome';

/** A label of the vocabulary, or a finer sub-pattern name: snake_case, as the critic writes them. */
export const LABEL_PATTERN = /^[a-z][a-z0-9_]{1,63}$/;

/**
 * The labels the rubric declares (its requirements' `symptoms`), each with a definition drawn
 * from the requirement it breaks: the first run's critic starts from these, not from nothing.
 */
export function declaredSymptoms(requirements: ReadonlyArray<{ readonly id: string; readonly text: string; readonly symptoms: readonly string[] }>): SymptomEntry[] {
  const entries = new Map<string, SymptomEntry>();
  for (const requirement of requirements) {
    for (const label of requirement.symptoms) {
      if (LABEL_PATTERN.test(label) && !entries.has(label)) entries.set(label, { label, description: `breaks the rubric's requirement "${requirement.id}": ${requirement.text}` });
    }
  }
  return [...entries.values()];
}

/**
 * The taxonomy a run's critic starts from: the store's, plus the declared labels it lacks (the
 * run adds them first), each read through the aliases (`canonical`), in label order.
 */
export function withDeclared(taxonomy: readonly SymptomEntry[], declared: readonly SymptomEntry[], canonical: (label: string) => string): SymptomEntry[] {
  const entries = new Map(taxonomy.map((entry) => [entry.label, entry]));
  for (const entry of declared) {
    const label = canonical(entry.label);
    if (!entries.has(label)) entries.set(label, { label, description: entry.description });
  }
  return [...entries.values()].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}

/**
 * The labels an iteration may speak in: the taxonomy, plus any label a failing record of the
 * baseline carries (so a report over these records can always be written), in label order.
 */
export function symptomVocabulary(taxonomy: readonly SymptomEntry[], records: Iterable<CaseRecord>): SymptomEntry[] {
  const entries = new Map(taxonomy.map((entry) => [entry.label, entry]));
  for (const record of records) {
    if (record.status !== 'ok' || record.pass !== false) continue;
    const label = record.critic && !record.critic.pass ? record.critic.label : NO_VERDICT_LABEL;
    if (!entries.has(label)) {
      const description = record.critic && !record.critic.pass ? record.critic.description : 'failed by the scorer; the critic gave no verdict';
      entries.set(label, { label, description });
    }
  }
  return [...entries.values()].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
}
