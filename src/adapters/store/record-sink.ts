// A run's case-trial records, written as they come (redacted: see stored-text.ts).
import type { CaseRecord } from '../../domain/record.ts';
import type { RecordSink } from '../../domain/ports/record-store.ts';
import type { Sql } from './sqlite.ts';
import { redactedJson, text } from './stored-text.ts';

/** Adds a label the critic gave to the vocabulary (see vocabulary.ts). */
export type AddSymptom = (label: string, description: string, runId: string | null) => void;

export class RecordRows implements RecordSink {
  constructor(
    private readonly sql: Sql,
    private readonly addSymptom: AddSymptom,
  ) {}

  /** Saves records, and the symptoms they brought (in order), as one transaction. */
  saveRecords(runId: string, records: readonly CaseRecord[], symptoms: ReadonlyArray<{ label: string; description: string }> = []): void {
    this.sql.transaction(() => {
      for (const record of records) insertRecord(this.sql, runId, record);
      for (const symptom of symptoms) this.addSymptom(symptom.label, symptom.description, runId);
    });
  }

  saveRecord(runId: string, record: CaseRecord): void {
    insertRecord(this.sql, runId, record);
  }
}

/** One record's row (a run imported from git writes its records through this too). */
export function insertRecord(sql: Sql, runId: string, record: CaseRecord): void {
  sql.run(
    `INSERT OR REPLACE INTO records (run_id, case_id, trial, status, output, trace_ref, scorer, critic, pass, symptom, error, agent_error, verdict_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    runId,
    record.caseId,
    record.trial,
    record.status,
    redactedJson(record.output),
    record.traceRef,
    redactedJson(record.scorer),
    redactedJson(record.critic),
    record.pass === null ? null : record.pass ? 1 : 0,
    record.critic?.label ?? null,
    text(record.error),
    text(record.agentError ?? null),
    record.verdictKey ?? null,
  );
}
