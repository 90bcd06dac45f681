// A run's case-trial records, read back a page at a time, their labels through the aliases the
// reader was made with (see vocabulary.ts).
import type { CaseRecord, CriticVerdict, ScorerResult } from '../../domain/record.ts';
import type { RecordReader } from '../../domain/ports/record-store.ts';
import { caseSummarizer, type CaseSummary } from '../../domain/case-summary.ts';
import type { Row, Sql, SqlValue } from './sqlite.ts';
import { parse } from './stored-text.ts';
import { verdictThroughAliases, type LabelAliases } from './vocabulary.ts';

/** Records read per query when a run's records are walked. */
const RECORD_PAGE = 512;

export class RecordPages implements RecordReader {
  constructor(
    private readonly sql: Sql,
    private readonly aliases: LabelAliases,
  ) {}

  /**
   * A run's records in case and trial order, read a page at a time so that a run of any size
   * is never held whole (and no query stays open between pages, so the store stays usable).
   * `only.failing` keeps the failing ones; `only.notable` all but the clean passes (failing,
   * ungraded, or with an agent error: what a run's end summary reads); `only.asRecorded` reads
   * the labels as the critic gave them, not through the aliases (what git records).
   */
  *eachRecord(runId: string, only: { readonly failing?: boolean; readonly notable?: boolean; readonly asRecorded?: boolean } = {}): Generator<CaseRecord> {
    const filter = only.failing ? ' AND pass = 0' : only.notable ? ' AND (pass IS NOT 1 OR agent_error IS NOT NULL)' : '';
    for (const row of this.pages(`SELECT * FROM records WHERE run_id = ?${filter}`, runId)) {
      const record = toRecord(row);
      yield this.aliases.size === 0 || only.asRecorded ? record : { ...record, critic: verdictThroughAliases(this.aliases, record.critic) };
    }
  }

  /** A run's records, all at once: for small runs (tests, imports, one case's trials). */
  records(runId: string): CaseRecord[] {
    return [...this.eachRecord(runId)];
  }

  /** Per-case pass counts of a run, in case order, without holding its records. */
  caseSummaries(runId: string): Map<string, CaseSummary> {
    const summarizer = caseSummarizer();
    for (const row of this.pages(`SELECT case_id, trial, status, pass, critic FROM records WHERE run_id = ?`, runId)) {
      const pass = row.pass === null ? null : Number(row.pass) === 1;
      summarizer.add({
        caseId: String(row.case_id),
        trial: Number(row.trial),
        status: row.status === 'infra_error' ? 'infra_error' : 'ok',
        pass,
        // Only a failing trial's verdict is read (its symptom); the others need no parsing.
        critic: pass === false ? verdictThroughAliases(this.aliases, parse<CriticVerdict>(row.critic)) : null,
      });
    }
    return summarizer.summaries();
  }

  /** The rows of `query` (over one run's records) in case and trial order, one page per query. */
  private *pages(query: string, runId: SqlValue): Generator<Row> {
    let after: { caseId: string; trial: number } | null = null;
    for (;;) {
      const rows: Row[] = after
        ? this.sql.all(`${query} AND (case_id, trial) > (?, ?) ORDER BY case_id, trial LIMIT ${RECORD_PAGE}`, runId, after.caseId, after.trial)
        : this.sql.all(`${query} ORDER BY case_id, trial LIMIT ${RECORD_PAGE}`, runId);
      yield* rows;
      const last = rows.at(-1);
      if (rows.length < RECORD_PAGE || !last) return;
      after = { caseId: String(last.case_id), trial: Number(last.trial) };
    }
  }
}

function toRecord(row: Row): CaseRecord {
  return {
    caseId: String(row.case_id),
    trial: Number(row.trial),
    status: row.status === 'infra_error' ? 'infra_error' : 'ok',
    output: parse(row.output),
    traceRef: String(row.trace_ref),
    scorer: parse<ScorerResult>(row.scorer),
    critic: parse<CriticVerdict>(row.critic),
    pass: row.pass === null ? null : Number(row.pass) === 1,
    error: row.error === null ? null : String(row.error),
    agentError: row.agent_error === null || row.agent_error === undefined ? null : String(row.agent_error),
    verdictKey: row.verdict_key === null || row.verdict_key === undefined ? null : String(row.verdict_key),
  };
}
