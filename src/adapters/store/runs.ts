// Runs: created, finished, found again (the cache of identical runs), imported from git, and the
// test split's evaluations of a release.
import type { CaseRecord } from '../../domain/record.ts';
import type { RunKeyParts } from '../../domain/run-fingerprint.ts';
import type { DocumentOrigin, RunIdentity, RunIndex, RunOrigin, RunPurpose, RunSummary } from '../../domain/ports/record-store.ts';
import type { Sql } from './sqlite.ts';
import { json, parse, type Now } from './stored-text.ts';
import { insertRecord } from './record-sink.ts';

/**
 * The runs a decision may reuse or count: those this store ran and those the line committed.
 * A run read only from a ref under refs/agentdevel/ ('ref') is found by its id, never otherwise.
 */
export const REUSABLE = `runs.origin != 'ref'`;

export class RunTable implements RunIndex {
  constructor(
    private readonly sql: Sql,
    private readonly now: Now,
  ) {}

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
      for (const record of records) insertRecord(this.sql, id, record);
      this.finishRun(id, status);
      return true;
    });
  }

  /** Runs in the store; with `origin`, only those of that origin. */
  runCount(origin?: RunOrigin): number {
    const row = origin ? this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE origin = ?`, origin) : this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM runs`);
    return Number(row?.n ?? 0);
  }

  testEvaluation(blueprint: string, commit: string): { runId: string; passRate: number; at: string } | undefined {
    const row = this.sql.get(`SELECT run_id, pass_rate, at FROM test_evaluations WHERE blueprint = ? AND commit_sha = ?`, blueprint, commit);
    return row ? { runId: String(row.run_id), passRate: Number(row.pass_rate), at: String(row.at) } : undefined;
  }

  saveTestEvaluation(blueprint: string, release: string, commit: string, runId: string, passRate: number): void {
    this.sql.run(`INSERT INTO test_evaluations (blueprint, release, commit_sha, run_id, pass_rate, at) VALUES (?, ?, ?, ?, ?, ?)`, blueprint, release, commit, runId, passRate, this.now());
  }
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
