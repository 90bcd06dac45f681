// The symptom vocabulary: the labels the critic gave, read through the label aliases recorded in
// git (see domain/label-aliases). A reader is made with the aliases it reads through; the rows
// keep the labels as they were given.
import type { SymptomEntry } from '../../domain/ports/model.ts';
import type { CriticVerdict } from '../../domain/record.ts';
import type { RunOrigin, SymptomVocabulary } from '../../domain/ports/record-store.ts';
import type { Sql } from './sqlite.ts';
import { text, type Now } from './stored-text.ts';
import { REUSABLE } from './runs.ts';

/** Label aliases, from a label to the label it reads as. */
export type LabelAliases = ReadonlyMap<string, string>;

/** A verdict with its label read through the aliases. */
export function verdictThroughAliases(aliases: LabelAliases, critic: CriticVerdict | null): CriticVerdict | null {
  const label = critic ? aliases.get(critic.label) : undefined;
  return critic && label !== undefined ? { ...critic, label } : critic;
}

export class SymptomLabels implements SymptomVocabulary {
  constructor(
    private readonly sql: Sql,
    private readonly now: Now,
    private readonly aliases: LabelAliases,
  ) {}

  /** The label a recorded label reads as. */
  canonicalLabel(label: string): string {
    return this.aliases.get(label) ?? label;
  }

  /** Failing case-trials and their cases per label (through the aliases), over every run of the train split. */
  labelCounts(): Array<{ label: string; caseTrials: number; cases: number }> {
    const counts = new Map<string, { caseTrials: number; cases: Set<string> }>();
    const rows = this.sql.all(`SELECT r.case_id AS case_id, r.symptom AS symptom FROM records r JOIN runs ON runs.id = r.run_id WHERE runs.split = 'train' AND ${REUSABLE} AND r.pass = 0 AND r.symptom IS NOT NULL`);
    for (const row of rows) {
      const label = this.canonicalLabel(String(row.symptom));
      const entry = counts.get(label) ?? { caseTrials: 0, cases: new Set<string>() };
      entry.caseTrials += 1;
      entry.cases.add(String(row.case_id));
      counts.set(label, entry);
    }
    return [...counts].map(([label, c]) => ({ label, caseTrials: c.caseTrials, cases: c.cases.size }));
  }

  /** The labels the critic is shown and the roles may use: aliased labels read as their target, listed once (labels read only from refs left out). */
  taxonomy(): SymptomEntry[] {
    const entries = new Map<string, SymptomEntry>();
    for (const row of this.sql.all(`SELECT label, description FROM symptoms WHERE origin != 'ref' ORDER BY label`)) {
      const label = this.canonicalLabel(String(row.label));
      // The target's own description wins; a new name (--into) takes its first merged label's.
      if (!entries.has(label) || label === String(row.label)) entries.set(label, { label, description: String(row.description) });
    }
    return [...entries.values()].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  }

  /** The taxonomy as recorded, every label the critic ever gave, aliases included (for taxonomy.json); labels read only from refs left out. */
  recordedTaxonomy(): SymptomEntry[] {
    return this.entries(`origin != 'ref'`);
  }

  /** Labels read only from a taxonomy.json on a ref under refs/agentdevel/: shown (`labels`), never sent to a model nor recorded with a decision. */
  labelsFromRefs(): SymptomEntry[] {
    return this.entries(`origin = 'ref'`);
  }

  private entries(where: string): SymptomEntry[] {
    return this.sql.all(`SELECT label, description FROM symptoms WHERE ${where} ORDER BY label`).map((row) => ({ label: String(row.label), description: String(row.description) }));
  }

  /**
   * The taxonomy only grows: a label, once recorded, keeps its first description. A label read
   * only from a ref is the exception: the line's or this store's own label takes its place.
   */
  addSymptom(label: string, description: string, runId: string | null, origin: RunOrigin = 'local'): void {
    this.sql.run(
      `INSERT INTO symptoms (label, description, first_seen_at, first_seen_run, origin) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (label) DO UPDATE SET description = excluded.description, origin = excluded.origin, first_seen_run = excluded.first_seen_run
       WHERE symptoms.origin = 'ref' AND excluded.origin != 'ref'`,
      label,
      text(description),
      this.now(),
      runId,
      origin,
    );
  }
}
