// Decisions and their flips, and which documents in git the store has read.
import type { DecisionIndex, DecisionRow, DocumentOrigin } from '../../domain/ports/record-store.ts';
import { redactStrings } from '../../domain/environment.ts';
import type { Sql } from './sqlite.ts';
import { parse, redactedJson, redactText, type Now } from './stored-text.ts';

export class DecisionTable implements DecisionIndex {
  constructor(
    private readonly sql: Sql,
    private readonly now: Now,
  ) {}

  saveDecision(decision: Omit<DecisionRow, 'id' | 'createdAt'>): number {
    return this.sql.transaction(() => {
      const inserted = this.sql.run(
        `INSERT INTO decisions (blueprint, iteration, candidate_ref, candidate_commit, baseline_run, candidate_run, outcome, reasons, intent, tag, audit_ref, recorded_commit, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        decision.blueprint,
        decision.iteration,
        decision.candidateRef,
        decision.candidateCommit,
        decision.baselineRun,
        decision.candidateRun,
        decision.outcome,
        JSON.stringify(redactStrings(decision.reasons, redactText)),
        redactedJson(decision.intent),
        decision.tag,
        decision.auditRef,
        decision.recordedCommit,
        this.now(),
      );
      const id = Number(inserted.lastInsertRowid);
      for (const caseId of decision.f2p) this.sql.run(`INSERT INTO flips (decision_id, case_id, kind) VALUES (?, ?, 'f2p')`, id, caseId);
      for (const caseId of decision.p2f) this.sql.run(`INSERT INTO flips (decision_id, case_id, kind) VALUES (?, ?, 'p2f')`, id, caseId);
      return id;
    });
  }

  decisions(blueprint: string): DecisionRow[] {
    return this.sql.all(`SELECT * FROM decisions WHERE blueprint = ? ORDER BY id`, blueprint).map((row) => {
      const flips = this.sql.all(`SELECT case_id, kind FROM flips WHERE decision_id = ? ORDER BY case_id`, row.id as number);
      return {
        id: Number(row.id),
        blueprint: String(row.blueprint),
        iteration: row.iteration === null ? null : Number(row.iteration),
        candidateRef: String(row.candidate_ref),
        candidateCommit: row.candidate_commit === null ? null : String(row.candidate_commit),
        baselineRun: row.baseline_run === null ? null : String(row.baseline_run),
        candidateRun: row.candidate_run === null ? null : String(row.candidate_run),
        outcome: String(row.outcome),
        reasons: parse<string[]>(row.reasons) ?? [],
        intent: parse(row.intent),
        tag: row.tag === null ? null : String(row.tag),
        auditRef: row.audit_ref === null ? null : String(row.audit_ref),
        recordedCommit: row.recorded_commit === null || row.recorded_commit === undefined ? null : String(row.recorded_commit),
        createdAt: String(row.created_at),
        f2p: flips.filter((f) => f.kind === 'f2p').map((f) => String(f.case_id)),
        p2f: flips.filter((f) => f.kind === 'p2f').map((f) => String(f.case_id)),
      };
    });
  }

  /** The git blobs (runs.json, taxonomy.json) already read into this store, and where they were found. */
  importedDocuments(): Map<string, DocumentOrigin> {
    return new Map(this.sql.all(`SELECT blob, origin FROM git_documents`).map((row) => [String(row.blob), row.origin === 'git' ? 'git' : 'ref']));
  }

  /** A document read from the line ('git') stays so; one read from a ref is raised when the line holds it too. */
  markImported(blob: string, file: string, origin: DocumentOrigin): void {
    this.sql.run(
      `INSERT INTO git_documents (blob, path, imported_at, origin) VALUES (?, ?, ?, ?)
       ON CONFLICT (blob) DO UPDATE SET origin = 'git', path = excluded.path WHERE excluded.origin = 'git'`,
      blob,
      file,
      this.now(),
      origin,
    );
  }
}
