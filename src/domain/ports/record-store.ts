// What the pipeline needs of the store (the SQLite index of runs, records, decisions, the
// symptom vocabulary and the cost ledger), in narrow ports; a Workspace hands out the whole
// `RecordStore`. adapters/store/ implements each part in its own file; store.ts (Store) composes
// them over one connection; app/ opens it.
import type { Clock } from './clock.ts';
import type { CallRole, Role, SymptomEntry, Usage } from './model.ts';
import type { CaseRecord, CriticVerdict } from '../record.ts';
import type { CaseSummary } from '../case-summary.ts';
import type { RunKeyParts } from '../run-fingerprint.ts';

export type RunPurpose = 'baseline' | 'candidate' | 'run' | 'test' | 'confirm';

/**
 * Where a run in the store came from: 'local' when this store ran it; 'git' when the line
 * committed it (a document in the tree of the line's tip); 'ref' when it was read from a ref under
 * refs/agentdevel/ only (an RC's audit ref, a pending ref): anyone who may push can write those,
 * so such a run is shown (report, show by id) and never reused or counted by a decision.
 */
export type RunOrigin = 'local' | 'git' | 'ref';

/** Where a document read from git was found: in the line's tip ('git') or only under refs/agentdevel/ ('ref'). */
export type DocumentOrigin = Exclude<RunOrigin, 'local'>;

export interface RunIdentity {
  readonly cacheKey: string;
  readonly blueprint: string;
  readonly commit: string;
  readonly blueprintTree: string;
  readonly taskTree: string;
  readonly split: string;
  readonly trials: number;
  readonly agentModel: string;
  readonly criticModel: string;
  readonly simulated: boolean;
  /** The other parts of the cache key (null for runs recorded before they were kept). */
  readonly keyParts?: RunKeyParts | null;
}

export interface RunSummary extends RunIdentity {
  readonly keyParts: RunKeyParts | null;
  readonly id: string;
  readonly purpose: RunPurpose;
  readonly status: 'running' | 'complete' | 'failed';
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly cases: number | null;
  readonly passed: number | null;
  readonly infraErrors: number | null;
  readonly name: string | null;
  /** See RunOrigin: only 'local' and 'git' runs may be reused by a decision. */
  readonly origin: RunOrigin;
}

export interface DecisionRow {
  readonly id: number;
  readonly blueprint: string;
  readonly iteration: number | null;
  readonly candidateRef: string;
  readonly candidateCommit: string | null;
  readonly baselineRun: string | null;
  readonly candidateRun: string | null;
  readonly outcome: string;
  readonly reasons: string[];
  readonly intent: unknown;
  readonly tag: string | null;
  readonly auditRef: string | null;
  /** The commit the decision wrote to git (its report on top of the candidate); null when it wrote none, or before it was recorded. */
  readonly recordedCommit: string | null;
  readonly createdAt: string;
  readonly f2p: string[];
  readonly p2f: string[];
}

/** Why a model call was not made. */
export type SpareReason = 'policy' | 'reused';

/** Which iteration, run and activity (a discover round) a model call is charged to. */
export interface LedgerScope {
  readonly iteration: number | null;
  readonly runId: string | null;
  readonly activity?: string | null;
}

/** The ledger's rows of one activity: totals and per role. */
export interface ActivityCost {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly byRole: ReadonlyArray<{ readonly role: string; readonly calls: number; readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number }>;
}

export interface IterationCost {
  readonly costUsd: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Model calls made (spared calls excluded). */
  readonly calls: number;
  /** Critic calls the critic policy spared. */
  readonly skippedCriticCalls: number;
  /** Critic calls not made because an identical trace was already judged. */
  readonly reusedCriticCalls: number;
  /** Their estimated cost at the mean billed critic call; null when none was billed (the mock is free). */
  readonly savedUsd: number | null;
}

/** Runs: created, finished, found again (the cache of identical runs), and imported from git. */
export interface RunIndex {
  /** The newest complete run of this key; `committedOnly` leaves out runs of uncommitted working files. */
  findCompleteRun(cacheKey: string, options?: { readonly committedOnly?: boolean }): RunSummary | undefined;
  /** The newest run of this key that the budget stopped (its records are resumed from), or undefined. */
  findStoppedRun(cacheKey: string): RunSummary | undefined;
  run(id: string): RunSummary | undefined;
  createRun(id: string, identity: RunIdentity, purpose: RunPurpose, name?: string | null): void;
  /** 'stopped': the budget stopped it before every case-trial ran (kept as failed, and resumed by the next run of its key). */
  finishRun(id: string, status: 'complete' | 'failed' | 'stopped'): void;
  /** The newest finished run of one blueprint version (by content) over a whole split, or undefined. */
  latestRun(blueprintTree: string, taskTree: string, split: string): RunSummary | undefined;
  /** The newest finished runs of one blueprint version over a whole split, newest (and complete) first. */
  latestRuns(blueprintTree: string, taskTree: string, split: string, limit: number): RunSummary[];
  /** The runs of one blueprint content on a split, newest first. */
  runsOfBlueprint(blueprintTree: string, split: string, limit: number): RunSummary[];
  /** The newest finished train run (confirmation runs left out). */
  newestRun(): RunSummary | undefined;
  /** A run by its name (imports, calibration) or its id. */
  findRun(nameOrId: string): RunSummary | undefined;
  /** Cases that both passed and failed within one version in any run recorded so far. */
  variedCases(taskTree: string): number;
  /** The newest train run that graded a case, optionally of one blueprint content (one read only from a ref, when no other did: for showing). */
  latestRunWithCase(caseId: string, blueprintTree: string | null): RunSummary | undefined;
  /**
   * Adds a run recorded in git with its records, as one transaction; returns whether it was added.
   * A run already here stays, except a 'ref' run that the line ('git') records too: the line's copy replaces it.
   */
  importRun(id: string, identity: RunIdentity, purpose: RunPurpose, status: 'complete' | 'failed', records: readonly CaseRecord[], origin: DocumentOrigin): boolean;
  /** Runs in the store; with `origin`, only those of that origin. */
  runCount(origin?: RunOrigin): number;
  testEvaluation(blueprint: string, commit: string): { runId: string; passRate: number; at: string } | undefined;
  saveTestEvaluation(blueprint: string, release: string, commit: string, runId: string, passRate: number): void;
}

/** A run's case-trial records: written as they come, read in order. */
export interface RecordSink {
  /** Saves records, and the symptoms they brought (in order), as one transaction. */
  saveRecords(runId: string, records: readonly CaseRecord[], symptoms?: ReadonlyArray<{ label: string; description: string }>): void;
  saveRecord(runId: string, record: CaseRecord): void;
}

export interface RecordReader {
  /** A run's records in case and trial order, a page at a time. */
  eachRecord(runId: string, only?: { readonly failing?: boolean; readonly notable?: boolean; readonly asRecorded?: boolean }): Generator<CaseRecord>;
  /** A run's records, all at once: for small runs. */
  records(runId: string): CaseRecord[];
  /** Per-case pass counts of a run, in case order. */
  caseSummaries(runId: string): Map<string, CaseSummary>;
}

/** The symptom vocabulary: labels as the critic gave them, read through the aliases recorded in git (see RecordStore.throughAliases). */
export interface SymptomVocabulary {
  canonicalLabel(label: string): string;
  labelCounts(): Array<{ label: string; caseTrials: number; cases: number }>;
  taxonomy(): SymptomEntry[];
  recordedTaxonomy(): SymptomEntry[];
  /** Labels read only from refs under refs/agentdevel/: to show, never to send to a model or record. */
  labelsFromRefs(): SymptomEntry[];
  /** Adds a label (origin 'local' by default); a label read only from a ref gives way to any other. */
  addSymptom(label: string, description: string, runId: string | null, origin?: RunOrigin): void;
}

/** Decisions, and which documents in git the store has read. */
export interface DecisionIndex {
  saveDecision(decision: Omit<DecisionRow, 'id' | 'createdAt'>): number;
  decisions(blueprint: string): DecisionRow[];
  /** The git blobs (runs.json, taxonomy.json) already read into this store, and where they were found. */
  importedDocuments(): Map<string, DocumentOrigin>;
  markImported(blob: string, file: string, origin: DocumentOrigin): void;
}

/** Requests, tokens and dollars: what some model calls cost. */
export interface Spend {
  readonly requests: number;
  readonly tokens: number;
  readonly costUsd: number;
}

/** The ledger's history, as a projection reads it: what each run and each iteration's other work cost. */
export interface SpendHistory {
  /** Runs that made model calls, with the case-trials they recorded. */
  readonly runs: ReadonlyArray<Spend & { readonly runId: string; readonly purpose: RunPurpose; readonly caseTrials: number; readonly iteration: number | null }>;
  /** Per iteration, per role: the calls made outside any run (diagnosis, synthesis, the reviewer). */
  readonly outsideRuns: ReadonlyArray<Spend & { readonly iteration: number; readonly role: string }>;
}

/** The cost ledger: model calls made and spared. */
export interface CostBook {
  spendHistory(): SpendHistory;
  recordModelCall(role: CallRole, model: string, usage: Usage, context: LedgerScope): void;
  recordSparedCalls(role: Role, model: string, count: number, reason: SpareReason, context: LedgerScope): void;
  costOfActivity(activity: string): ActivityCost;
  modelCallRows(): number;
  costOfIteration(iteration: number): IterationCost;
}

/** A verdict kept for a content: whether the line records it, and the scope it was given in. */
export interface KeptVerdict {
  readonly verdict: CriticVerdict;
  /** A runs.json the line committed records this verdict under this key. */
  readonly onLine: boolean;
  /** The scope it was given in (null when only read from git). */
  readonly scope: string | null;
}

/** Verdicts the critic gave, by content, so an identical trace is judged once (see stages/critic/judge-once). */
export interface VerdictMemo {
  keptVerdict(key: string): KeptVerdict | null;
  saveCriticVerdict(key: string, verdict: CriticVerdict, scope: string): void;
  /** Verdicts a runs.json on the line records (read from git, or written by a promotion). */
  keepLineVerdicts(verdicts: ReadonlyArray<{ readonly key: string; readonly verdict: CriticVerdict }>): void;
}

export interface RecordStore extends RunIndex, RecordSink, RecordReader, SymptomVocabulary, DecisionIndex, CostBook, VerdictMemo {
  /**
   * The same store, its labels (records, summaries, the taxonomy, counts) read through exactly
   * these aliases, from a label to the one it reads as; what is written keeps its own labels.
   * An opened store reads through none. A view, not a setting: other holders of the store are
   * not affected.
   */
  throughAliases(aliases: ReadonlyMap<string, string>): RecordStore;
  /** Closes the store, for every view of it. */
  close(): void;
}

/** Opens (or creates) the store of a workspace. */
export type OpenRecordStore = (workspace: string, clock: Clock) => RecordStore;
