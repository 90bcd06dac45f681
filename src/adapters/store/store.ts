import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../domain/ports/clock.ts';
import type { CallRole, Role, SymptomEntry, Usage } from '../../domain/ports/model.ts';
import type { CaseRecord, CriticVerdict, ScorerResult } from '../../domain/record.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { migrate, StoreTooNew } from './migrations.ts';
import { caseSummarizer, type CaseSummary } from '../../domain/case-summary.ts';
import type { RunKeyParts } from '../../domain/run-fingerprint.ts';
import { openSql, sqliteFailure, type Row, type Sql } from './sqlite.ts';
import { CostLedger } from './ledger.ts';
import { STATE_DIR } from '../../domain/state-dir.ts';
import { makeRedactor, redactStrings } from '../../domain/environment.ts';
import type { ActivityCost, DecisionRow, DocumentOrigin, RunOrigin, IterationCost, LedgerScope, RecordStore, RunIdentity, RunPurpose, RunSummary, SpareReason, SpendHistory } from '../../domain/ports/record-store.ts';


/** Records read per query when a run's records are walked. */
const RECORD_PAGE = 512;

export const DATABASE_FILE = 'state.db';

/**
 * The runs a decision may reuse or count: those this store ran and those the line committed.
 * A run read only from a ref under refs/agentdevel/ ('ref') is found by its id, never otherwise.
 */
const REUSABLE = `runs.origin != 'ref'`;

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));
const parse = <T>(text: unknown): T | null => (typeof text === 'string' ? (JSON.parse(text) as T) : null);

/**
 * The store is a file users copy, attach to bug reports and cache in CI, so every free text it
 * writes (what an agent, a scorer, a critic, a check or a model said: records, a critic verdict
 * kept for reuse, a label's definition, a decision's reasons and intent) is redacted here, by
 * value, whichever way it came: every secret this process knows (declared: the command's
 * environment, passEnv values, the workspace's `secrets`) and URL passwords. Identifiers (run
 * ids, commits, digests, keys) are written as they are: a short declared value such as a port
 * could occur in one, and a lookup must find what was written.
 */
const redactText = makeRedactor([]);
const text = (value: string | null): string | null => (value === null ? null : redactText(value));
const redactedJson = (value: unknown): string | null => json(redactStrings(value, redactText));

/** The SQLite index of runs, records, decisions, the symptom taxonomy and the cost ledger. */
export class Store implements RecordStore {
  /** Label aliases recorded in git (see domain/label-aliases): applied when labels are read, never written. */
  private aliases: ReadonlyMap<string, string> = new Map();

  private readonly ledger: CostLedger;

  private constructor(
    private readonly sql: Sql,
    private readonly clock: Clock,
  ) {
    this.ledger = new CostLedger(sql, () => this.now());
  }

  /**
   * Opens (or creates) the store of a workspace. Damaged or foreign state is a clear error
   * with its fix: a file where the folder should be, a file that is not a database or is
   * truncated, a store written by a newer agentdevel.
   */
  static open(workspace: string, clock: Clock): Store {
    const dir = path.join(workspace, STATE_DIR);
    const file = path.join(dir, DATABASE_FILE);
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
      throw new AgentdevelError('STORE_DAMAGED', `${dir} is a file, but agentdevel keeps its store in a folder there`, {
        cause: error,
        hint: `Move the file aside (mv ${dir} ${dir}.bad) and run the command again; history stays in git.`,
      });
    }
    let sql: Sql | null = null;
    try {
      sql = openSql(file);
      migrate(sql);
      sql.get(`SELECT COUNT(*) AS n FROM runs`);
      return new Store(sql, clock);
    } catch (error) {
      sql?.close();
      if (error instanceof StoreTooNew) throw new AgentdevelError('STORE_TOO_NEW', `${file}: ${error.message}`, { cause: error });
      const failure = sqliteFailure(error);
      if (failure === null) throw error;
      throw new AgentdevelError('STORE_DAMAGED', `${file} cannot be used as agentdevel's store: ${failure.message} (${failure.code})`, { cause: error });
    }
  }

  close(): void {
    this.sql.close();
  }

  /** Reads every label through these aliases from now on (records keep what they were given). */
  useAliases(aliases: ReadonlyMap<string, string>): void {
    this.aliases = aliases;
  }

  /** The label a recorded label reads as. */
  canonicalLabel(label: string): string {
    return this.aliases.get(label) ?? label;
  }

  private throughAliases(critic: CriticVerdict | null): CriticVerdict | null {
    if (!critic || !this.aliases.has(critic.label)) return critic;
    return { ...critic, label: this.canonicalLabel(critic.label) };
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

  private now(): string {
    return this.clock.now().toISOString();
  }

  findCompleteRun(cacheKey: string, options: { readonly committedOnly?: boolean } = {}): RunSummary | undefined {
    const committed = options.committedOnly ? ` AND commit_sha NOT LIKE '%+dirty'` : '';
    const row = this.sql.get(`SELECT * FROM runs WHERE cache_key = ? AND status = 'complete' AND ${REUSABLE}${committed} ORDER BY started_at DESC LIMIT 1`, cacheKey);
    return row ? toRun(row) : undefined;
  }

  findStoppedRun(cacheKey: string): RunSummary | undefined {
    const row = this.sql.get(
      `SELECT runs.* FROM runs JOIN stopped_runs ON stopped_runs.run_id = runs.id WHERE runs.cache_key = ? AND ${REUSABLE} ORDER BY runs.started_at DESC, runs.rowid DESC LIMIT 1`,
      cacheKey,
    );
    return row ? toRun(row) : undefined;
  }

  run(id: string): RunSummary | undefined {
    const row = this.sql.get(`SELECT * FROM runs WHERE id = ?`, id);
    return row ? toRun(row) : undefined;
  }

  createRun(id: string, identity: RunIdentity, purpose: RunPurpose, name: string | null = null): void {
    this.sql.run(
      `INSERT INTO runs (id, cache_key, blueprint, commit_sha, blueprint_tree, task_tree, split, trials, agent_model, critic_model, purpose, status, simulated, started_at, name, key_parts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
      id,
      identity.cacheKey,
      identity.blueprint,
      identity.commit,
      identity.blueprintTree,
      identity.taskTree,
      identity.split,
      identity.trials,
      identity.agentModel,
      identity.criticModel,
      purpose,
      identity.simulated ? 1 : 0,
      this.now(),
      name,
      json(identity.keyParts),
    );
  }

  /** The newest finished run of one blueprint version (by content) over a whole split (not a confirmation of a few cases), or undefined. */
  latestRun(blueprintTree: string, taskTree: string, split: string): RunSummary | undefined {
    return this.latestRuns(blueprintTree, taskTree, split, 1)[0];
  }

  /** The newest finished runs of one blueprint version over a whole split, newest (and complete) first. */
  latestRuns(blueprintTree: string, taskTree: string, split: string, limit: number): RunSummary[] {
    return this.sql
      .all(
        `SELECT * FROM runs WHERE blueprint_tree = ? AND task_tree = ? AND split = ? AND purpose != 'confirm' AND status != 'running' AND ${REUSABLE} ORDER BY status = 'complete' DESC, started_at DESC, rowid DESC LIMIT ?`,
        blueprintTree,
        taskTree,
        split,
        limit,
      )
      .map(toRun);
  }

  /** The runs of one blueprint content on a split (any task, confirmations left out), newest first: what a run that was not reused is compared with. */
  runsOfBlueprint(blueprintTree: string, split: string, limit: number): RunSummary[] {
    return this.sql
      .all(`SELECT * FROM runs WHERE blueprint_tree = ? AND split = ? AND purpose != 'confirm' AND status != 'running' AND ${REUSABLE} ORDER BY started_at DESC, rowid DESC LIMIT ?`, blueprintTree, split, limit)
      .map(toRun);
  }

  /** The newest finished train run (confirmation runs, which hold only moved cases, left out). */
  newestRun(): RunSummary | undefined {
    const row = this.sql.get(`SELECT * FROM runs WHERE split = 'train' AND purpose != 'confirm' AND status != 'running' AND ${REUSABLE} ORDER BY started_at DESC, rowid DESC LIMIT 1`);
    return row ? toRun(row) : undefined;
  }

  /** A run by its name (imports, calibration) or its id. */
  findRun(nameOrId: string): RunSummary | undefined {
    const row = this.sql.get(`SELECT * FROM runs WHERE name = ? OR id = ? ORDER BY name IS NULL LIMIT 1`, nameOrId, nameOrId);
    return row ? toRun(row) : undefined;
  }

  /**
   * Evidence that this task's agent is noisy: the number of cases that both passed and failed
   * within one version (same blueprint content and models) in any run recorded so far. The
   * statistical gate needs no such history; the paper-faithful gate warns when it is not zero.
   */
  variedCases(taskTree: string): number {
    const row = this.sql.get<{ n: number }>(
      `SELECT COUNT(DISTINCT case_id) AS n FROM (
         SELECT r.case_id AS case_id, SUM(r.pass) AS passes, COUNT(r.pass) AS graded
         FROM records r JOIN runs ON runs.id = r.run_id
         WHERE runs.task_tree = ? AND ${REUSABLE} AND r.status = 'ok' AND r.pass IS NOT NULL
         GROUP BY runs.blueprint_tree, runs.agent_model, runs.critic_model, r.case_id)
       WHERE passes > 0 AND passes < graded`,
      taskTree,
    );
    return Number(row?.n ?? 0);
  }

  /**
   * The newest run of the train split that graded a case, optionally of one blueprint content
   * (a version); confirmation runs, which hold only cases that moved, are left out. For `show`,
   * which only shows: a run read from a ref is taken only when no other run graded the case.
   */
  latestRunWithCase(caseId: string, blueprintTree: string | null): RunSummary | undefined {
    const row = this.sql.get(
      `SELECT runs.* FROM runs WHERE split = 'train' AND purpose != 'confirm' AND (? IS NULL OR blueprint_tree = ?)
         AND EXISTS (SELECT 1 FROM records r WHERE r.run_id = runs.id AND r.case_id = ?)
       ORDER BY ${REUSABLE} DESC, started_at DESC, rowid DESC LIMIT 1`,
      blueprintTree,
      blueprintTree,
      caseId,
    );
    return row ? toRun(row) : undefined;
  }

  finishRun(id: string, status: 'complete' | 'failed' | 'stopped'): void {
    const stats = this.sql.get<{ cases: number; passed: number; infra: number }>(
      `SELECT COUNT(*) AS cases, COALESCE(SUM(pass = 1), 0) AS passed, COALESCE(SUM(status = 'infra_error'), 0) AS infra FROM records WHERE run_id = ?`,
      id,
    );
    this.sql.run(
      `UPDATE runs SET status = ?, finished_at = ?, cases = ?, passed = ?, infra_errors = ? WHERE id = ?`,
      // A stopped run is a failed one (never reused whole), marked apart so its records can be resumed.
      status === 'stopped' ? 'failed' : status,
      this.now(),
      stats?.cases ?? 0,
      stats?.passed ?? 0,
      stats?.infra ?? 0,
      id,
    );
    if (status === 'stopped') this.sql.run(`INSERT OR IGNORE INTO stopped_runs (run_id) VALUES (?)`, id);
  }

  /** Saves records, and the symptoms they brought (in order), as one transaction. */
  saveRecords(runId: string, records: readonly CaseRecord[], symptoms: ReadonlyArray<{ label: string; description: string }> = []): void {
    this.sql.transaction(() => {
      for (const record of records) this.insertRecord(runId, record);
      for (const symptom of symptoms) this.addSymptom(symptom.label, symptom.description, runId);
    });
  }

  saveRecord(runId: string, record: CaseRecord): void {
    this.insertRecord(runId, record);
  }

  private insertRecord(runId: string, record: CaseRecord): void {
    this.sql.run(
      `INSERT OR REPLACE INTO records (run_id, case_id, trial, status, output, trace_ref, scorer, critic, pass, symptom, error, agent_error)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    );
  }

  /**
   * A run's records in case and trial order, read a page at a time so that a run of any size
   * is never held whole (and no query stays open between pages, so the store stays usable).
   * `only.failing` keeps the failing ones; `only.notable` all but the clean passes (failing,
   * ungraded, or with an agent error: what a run's end summary reads); `only.asRecorded` reads
   * the labels as the critic gave them, not through the aliases (what git records).
   */
  *eachRecord(runId: string, only: { readonly failing?: boolean; readonly notable?: boolean; readonly asRecorded?: boolean } = {}): Generator<CaseRecord> {
    const filter = only.failing ? ' AND pass = 0' : only.notable ? ' AND (pass IS NOT 1 OR agent_error IS NOT NULL)' : '';
    let after: { caseId: string; trial: number } | null = null;
    for (;;) {
      const rows: Row[] = after
        ? this.sql.all(`SELECT * FROM records WHERE run_id = ?${filter} AND (case_id, trial) > (?, ?) ORDER BY case_id, trial LIMIT ${RECORD_PAGE}`, runId, after.caseId, after.trial)
        : this.sql.all(`SELECT * FROM records WHERE run_id = ?${filter} ORDER BY case_id, trial LIMIT ${RECORD_PAGE}`, runId);
      for (const row of rows) {
        const record = toRecord(row);
        yield this.aliases.size === 0 || only.asRecorded ? record : { ...record, critic: this.throughAliases(record.critic) };
      }
      const last = rows.at(-1);
      if (rows.length < RECORD_PAGE || !last) return;
      after = { caseId: String(last.case_id), trial: Number(last.trial) };
    }
  }

  /** A run's records, all at once: for small runs (tests, imports, one case's trials). */
  records(runId: string): CaseRecord[] {
    return [...this.eachRecord(runId)];
  }

  /** Per-case pass counts of a run, in case order, without holding its records. */
  caseSummaries(runId: string): Map<string, CaseSummary> {
    const summarizer = caseSummarizer();
    let after: { caseId: string; trial: number } | null = null;
    for (;;) {
      const columns = `SELECT case_id, trial, status, pass, critic FROM records WHERE run_id = ?`;
      const rows: Row[] = after
        ? this.sql.all(`${columns} AND (case_id, trial) > (?, ?) ORDER BY case_id, trial LIMIT ${RECORD_PAGE}`, runId, after.caseId, after.trial)
        : this.sql.all(`${columns} ORDER BY case_id, trial LIMIT ${RECORD_PAGE}`, runId);
      for (const row of rows) {
        const pass = row.pass === null ? null : Number(row.pass) === 1;
        summarizer.add({
          caseId: String(row.case_id),
          trial: Number(row.trial),
          status: row.status === 'infra_error' ? 'infra_error' : 'ok',
          pass,
          // Only a failing trial's verdict is read (its symptom); the others need no parsing.
          critic: pass === false ? this.throughAliases(parse<CriticVerdict>(row.critic)) : null,
        });
      }
      const last = rows.at(-1);
      if (rows.length < RECORD_PAGE || !last) return summarizer.summaries();
      after = { caseId: String(last.case_id), trial: Number(last.trial) };
    }
  }

  /**
   * Adds a run recorded in git (a clone rebuilding its store), with its records, as one
   * transaction; a run already here is left as it is. Returns whether it was added.
   */
  importRun(id: string, identity: RunIdentity, purpose: RunPurpose, status: 'complete' | 'failed', records: readonly CaseRecord[], origin: DocumentOrigin): boolean {
    return this.sql.transaction(() => {
      const held = this.sql.get<{ origin: string }>(`SELECT origin FROM runs WHERE id = ?`, id);
      // The line's copy of a run replaces one read from a ref under the same id (which anyone may have written).
      if (held && !(held.origin === 'ref' && origin === 'git')) return false;
      if (held) {
        this.sql.run(`DELETE FROM records WHERE run_id = ?`, id);
        this.sql.run(`DELETE FROM runs WHERE id = ?`, id);
      }
      this.createRun(id, identity, purpose);
      this.sql.run(`UPDATE runs SET origin = ? WHERE id = ?`, origin, id);
      for (const record of records) this.insertRecord(id, record);
      this.finishRun(id, status);
      return true;
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

  /** Runs in the store; with `origin`, only those of that origin. */
  runCount(origin?: RunOrigin): number {
    const row = origin ? this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE origin = ?`, origin) : this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs`);
    return Number(row?.n ?? 0);
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
    return this.sql.all(`SELECT label, description FROM symptoms WHERE origin != 'ref' ORDER BY label`).map((row) => ({ label: String(row.label), description: String(row.description) }));
  }

  /** Labels read only from a taxonomy.json on a ref under refs/agentdevel/: shown (`labels`), never sent to a model nor recorded with a decision. */
  labelsFromRefs(): SymptomEntry[] {
    return this.sql.all(`SELECT label, description FROM symptoms WHERE origin = 'ref' ORDER BY label`).map((row) => ({ label: String(row.label), description: String(row.description) }));
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

  // The cost ledger's rows live in ledger.ts; the store hands them its connection and clock.
  spendHistory(): SpendHistory {
    return this.ledger.spendHistory();
  }

  recordModelCall(role: CallRole, model: string, usage: Usage, context: LedgerScope): void {
    this.ledger.recordModelCall(role, model, usage, context);
  }

  recordSparedCalls(role: Role, model: string, count: number, reason: SpareReason, context: LedgerScope): void {
    this.ledger.recordSparedCalls(role, model, count, reason, context);
  }

  costOfActivity(activity: string): ActivityCost {
    return this.ledger.costOfActivity(activity);
  }

  modelCallRows(): number {
    return this.ledger.modelCallRows();
  }

  costOfIteration(iteration: number): IterationCost {
    return this.ledger.costOfIteration(iteration);
  }

  /** A verdict the critic gave on exactly this content, or null. */
  criticVerdict(key: string): CriticVerdict | null {
    const row = this.sql.get<{ verdict: string }>(`SELECT verdict FROM critic_verdicts WHERE key = ?`, key);
    return row ? (JSON.parse(row.verdict) as CriticVerdict) : null;
  }

  saveCriticVerdict(key: string, verdict: CriticVerdict): void {
    this.sql.run(`INSERT OR IGNORE INTO critic_verdicts (key, verdict, at) VALUES (?, ?, ?)`, key, redactedJson(verdict), this.now());
  }

  testEvaluation(blueprint: string, commit: string): { runId: string; passRate: number; at: string } | undefined {
    const row = this.sql.get(`SELECT run_id, pass_rate, at FROM test_evaluations WHERE blueprint = ? AND commit_sha = ?`, blueprint, commit);
    return row ? { runId: String(row.run_id), passRate: Number(row.pass_rate), at: String(row.at) } : undefined;
  }

  saveTestEvaluation(blueprint: string, release: string, commit: string, runId: string, passRate: number): void {
    this.sql.run(`INSERT INTO test_evaluations (blueprint, release, commit_sha, run_id, pass_rate, at) VALUES (?, ?, ?, ?, ?, ?)`, blueprint, release, commit, runId, passRate, this.now());
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
  };
}

function toRun(row: Record<string, unknown>): RunSummary {
  return {
    id: String(row.id),
    cacheKey: String(row.cache_key),
    blueprint: String(row.blueprint),
    commit: String(row.commit_sha),
    blueprintTree: String(row.blueprint_tree),
    taskTree: String(row.task_tree),
    split: String(row.split),
    trials: Number(row.trials),
    agentModel: String(row.agent_model),
    criticModel: String(row.critic_model),
    purpose: String(row.purpose) as RunPurpose,
    status: String(row.status) as RunSummary['status'],
    simulated: Number(row.simulated) === 1,
    startedAt: String(row.started_at),
    finishedAt: row.finished_at === null ? null : String(row.finished_at),
    cases: row.cases === null ? null : Number(row.cases),
    passed: row.passed === null ? null : Number(row.passed),
    infraErrors: row.infra_errors === null ? null : Number(row.infra_errors),
    name: row.name === null || row.name === undefined ? null : String(row.name),
    origin: row.origin === 'git' || row.origin === 'ref' ? row.origin : 'local',
    keyParts: parse<RunKeyParts>(row.key_parts),
  };
}
