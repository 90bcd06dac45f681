// The SQLite store of a workspace: one database connection, and over it one small adapter per
// narrow port of domain/ports/record-store.ts (runs.ts, record-sink.ts, record-reader.ts,
// vocabulary.ts, decisions.ts, ledger.ts, verdicts.ts). `Store` opens the connection and hands
// each part the whole port's calls, so callers see one `RecordStore`.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../../domain/ports/clock.ts';
import type { CallRole, Role, SymptomEntry, Usage } from '../../domain/ports/model.ts';
import type { CaseRecord, CriticVerdict } from '../../domain/record.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { CaseSummary } from '../../domain/case-summary.ts';
import { STATE_DIR } from '../../domain/state-dir.ts';
import type { ActivityCost, DecisionRow, DocumentOrigin, IterationCost, KeptVerdict, LedgerScope, RecordStore, RunIdentity, RunOrigin, RunPurpose, RunSummary, SpareReason, SpendHistory } from '../../domain/ports/record-store.ts';
import { migrate, StoreTooNew } from './migrations.ts';
import { openSql, sqliteFailure, type Sql } from './sqlite.ts';
import { CostLedger } from './ledger.ts';
import { RunTable } from './runs.ts';
import { RecordRows } from './record-sink.ts';
import { RecordPages } from './record-reader.ts';
import { SymptomLabels, type LabelAliases } from './vocabulary.ts';
import { DecisionTable } from './decisions.ts';
import { VerdictRows } from './verdicts.ts';
import type { Now } from './stored-text.ts';

export const DATABASE_FILE = 'state.db';

/** The SQLite index of runs, records, decisions, the symptom taxonomy and the cost ledger. */
export class Store implements RecordStore {
  private readonly runIndex: RunTable;
  private readonly recordSink: RecordRows;
  private readonly recordReader: RecordPages;
  private readonly vocabulary: SymptomLabels;
  private readonly decisionIndex: DecisionTable;
  private readonly costBook: CostLedger;
  private readonly verdictMemo: VerdictRows;

  private constructor(
    private readonly sql: Sql,
    private readonly clock: Clock,
    /** Label aliases recorded in git (see domain/label-aliases): applied when labels are read, never written. */
    aliases: LabelAliases,
  ) {
    const now: Now = () => clock.now().toISOString();
    this.runIndex = new RunTable(sql, now);
    this.vocabulary = new SymptomLabels(sql, now, aliases);
    this.recordSink = new RecordRows(sql, (label, description, runId) => this.vocabulary.addSymptom(label, description, runId));
    this.recordReader = new RecordPages(sql, aliases);
    this.decisionIndex = new DecisionTable(sql, now);
    this.costBook = new CostLedger(sql, now);
    this.verdictMemo = new VerdictRows(sql, now);
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
      return new Store(sql, clock, new Map());
    } catch (error) {
      sql?.close();
      if (error instanceof StoreTooNew) throw new AgentdevelError('STORE_TOO_NEW', `${file}: ${error.message}`, { cause: error });
      const failure = sqliteFailure(error);
      if (failure === null) throw error;
      throw new AgentdevelError('STORE_DAMAGED', `${file} cannot be used as agentdevel's store: ${failure.message} (${failure.code})`, { cause: error });
    }
  }

  /** The same database (one connection), its labels read through exactly these aliases; records keep what they were given. */
  throughAliases(aliases: ReadonlyMap<string, string>): Store {
    return new Store(this.sql, this.clock, aliases);
  }

  /** Closes the connection, for every view of it. */
  close(): void {
    this.sql.close();
  }

  // Runs (runs.ts).
  findCompleteRun(cacheKey: string, options?: { readonly committedOnly?: boolean }): RunSummary | undefined {
    return this.runIndex.findCompleteRun(cacheKey, options);
  }
  findStoppedRun(cacheKey: string): RunSummary | undefined {
    return this.runIndex.findStoppedRun(cacheKey);
  }
  run(id: string): RunSummary | undefined {
    return this.runIndex.run(id);
  }
  createRun(id: string, identity: RunIdentity, purpose: RunPurpose, name?: string | null): void {
    this.runIndex.createRun(id, identity, purpose, name);
  }
  finishRun(id: string, status: 'complete' | 'failed' | 'stopped'): void {
    this.runIndex.finishRun(id, status);
  }
  latestRun(blueprintTree: string, taskTree: string, split: string): RunSummary | undefined {
    return this.runIndex.latestRun(blueprintTree, taskTree, split);
  }
  latestRuns(blueprintTree: string, taskTree: string, split: string, limit: number): RunSummary[] {
    return this.runIndex.latestRuns(blueprintTree, taskTree, split, limit);
  }
  runsOfBlueprint(blueprintTree: string, split: string, limit: number): RunSummary[] {
    return this.runIndex.runsOfBlueprint(blueprintTree, split, limit);
  }
  newestRun(): RunSummary | undefined {
    return this.runIndex.newestRun();
  }
  findRun(nameOrId: string): RunSummary | undefined {
    return this.runIndex.findRun(nameOrId);
  }
  variedCases(taskTree: string): number {
    return this.runIndex.variedCases(taskTree);
  }
  latestRunWithCase(caseId: string, blueprintTree: string | null): RunSummary | undefined {
    return this.runIndex.latestRunWithCase(caseId, blueprintTree);
  }
  importRun(id: string, identity: RunIdentity, purpose: RunPurpose, status: 'complete' | 'failed', records: readonly CaseRecord[], origin: DocumentOrigin): boolean {
    return this.runIndex.importRun(id, identity, purpose, status, records, origin);
  }
  runCount(origin?: RunOrigin): number {
    return this.runIndex.runCount(origin);
  }
  testEvaluation(blueprint: string, commit: string): { runId: string; passRate: number; at: string } | undefined {
    return this.runIndex.testEvaluation(blueprint, commit);
  }
  saveTestEvaluation(blueprint: string, release: string, commit: string, runId: string, passRate: number): void {
    this.runIndex.saveTestEvaluation(blueprint, release, commit, runId, passRate);
  }

  // Records (record-sink.ts, record-reader.ts).
  saveRecords(runId: string, records: readonly CaseRecord[], symptoms?: ReadonlyArray<{ label: string; description: string }>): void {
    this.recordSink.saveRecords(runId, records, symptoms);
  }
  saveRecord(runId: string, record: CaseRecord): void {
    this.recordSink.saveRecord(runId, record);
  }
  eachRecord(runId: string, only?: { readonly failing?: boolean; readonly notable?: boolean; readonly asRecorded?: boolean }): Generator<CaseRecord> {
    return this.recordReader.eachRecord(runId, only);
  }
  records(runId: string): CaseRecord[] {
    return this.recordReader.records(runId);
  }
  caseSummaries(runId: string): Map<string, CaseSummary> {
    return this.recordReader.caseSummaries(runId);
  }

  // The vocabulary (vocabulary.ts).
  canonicalLabel(label: string): string {
    return this.vocabulary.canonicalLabel(label);
  }
  labelCounts(): Array<{ label: string; caseTrials: number; cases: number }> {
    return this.vocabulary.labelCounts();
  }
  taxonomy(): SymptomEntry[] {
    return this.vocabulary.taxonomy();
  }
  recordedTaxonomy(): SymptomEntry[] {
    return this.vocabulary.recordedTaxonomy();
  }
  labelsFromRefs(): SymptomEntry[] {
    return this.vocabulary.labelsFromRefs();
  }
  addSymptom(label: string, description: string, runId: string | null, origin?: RunOrigin): void {
    this.vocabulary.addSymptom(label, description, runId, origin);
  }

  // Decisions (decisions.ts).
  saveDecision(decision: Omit<DecisionRow, 'id' | 'createdAt'>): number {
    return this.decisionIndex.saveDecision(decision);
  }
  decisions(blueprint: string): DecisionRow[] {
    return this.decisionIndex.decisions(blueprint);
  }
  importedDocuments(): Map<string, DocumentOrigin> {
    return this.decisionIndex.importedDocuments();
  }
  markImported(blob: string, file: string, origin: DocumentOrigin): void {
    this.decisionIndex.markImported(blob, file, origin);
  }

  // The cost ledger (ledger.ts).
  spendHistory(): SpendHistory {
    return this.costBook.spendHistory();
  }
  recordModelCall(role: CallRole, model: string, usage: Usage, context: LedgerScope): void {
    this.costBook.recordModelCall(role, model, usage, context);
  }
  recordSparedCalls(role: Role, model: string, count: number, reason: SpareReason, context: LedgerScope): void {
    this.costBook.recordSparedCalls(role, model, count, reason, context);
  }
  costOfActivity(activity: string): ActivityCost {
    return this.costBook.costOfActivity(activity);
  }
  modelCallRows(): number {
    return this.costBook.modelCallRows();
  }
  costOfIteration(iteration: number): IterationCost {
    return this.costBook.costOfIteration(iteration);
  }

  // Critic verdicts (verdicts.ts).
  keptVerdict(key: string): KeptVerdict | null {
    return this.verdictMemo.keptVerdict(key);
  }
  saveCriticVerdict(key: string, verdict: CriticVerdict, scope: string): void {
    this.verdictMemo.saveCriticVerdict(key, verdict, scope);
  }
  keepLineVerdicts(verdicts: ReadonlyArray<{ readonly key: string; readonly verdict: CriticVerdict }>): void {
    this.verdictMemo.keepLineVerdicts(verdicts);
  }
}
