import type { Sql } from './sqlite.ts';

/**
 * Schema migrations, applied in order and recorded in PRAGMA user_version. Append only: a
 * released migration is never edited, so every database can be brought forward.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    cache_key TEXT NOT NULL,
    blueprint TEXT NOT NULL,
    commit_sha TEXT NOT NULL,
    blueprint_tree TEXT NOT NULL,
    task_tree TEXT NOT NULL,
    split TEXT NOT NULL,
    trials INTEGER NOT NULL,
    agent_model TEXT NOT NULL,
    critic_model TEXT NOT NULL,
    purpose TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed')),
    simulated INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    cases INTEGER,
    passed INTEGER,
    infra_errors INTEGER
  );
  CREATE INDEX runs_by_cache_key ON runs (cache_key, status);
  CREATE TABLE records (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    case_id TEXT NOT NULL,
    trial INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'infra_error')),
    output TEXT,
    trace_ref TEXT NOT NULL,
    scorer TEXT,
    critic TEXT,
    pass INTEGER,
    symptom TEXT,
    error TEXT,
    PRIMARY KEY (run_id, case_id, trial)
  );
  CREATE TABLE symptoms (
    label TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    first_seen_at TEXT NOT NULL,
    first_seen_run TEXT
  );
  CREATE TABLE decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    blueprint TEXT NOT NULL,
    iteration INTEGER,
    candidate_ref TEXT NOT NULL,
    candidate_commit TEXT,
    baseline_run TEXT,
    candidate_run TEXT,
    outcome TEXT NOT NULL,
    reasons TEXT NOT NULL,
    intent TEXT,
    tag TEXT,
    audit_ref TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE flips (
    decision_id INTEGER NOT NULL REFERENCES decisions (id) ON DELETE CASCADE,
    case_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('p2f', 'f2p')),
    PRIMARY KEY (decision_id, case_id)
  );
  CREATE TABLE model_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    role TEXT NOT NULL,
    model TEXT NOT NULL,
    iteration INTEGER,
    run_id TEXT,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    at TEXT NOT NULL
  );
  CREATE TABLE test_evaluations (
    blueprint TEXT NOT NULL,
    release TEXT NOT NULL,
    commit_sha TEXT NOT NULL,
    run_id TEXT NOT NULL,
    pass_rate REAL NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (blueprint, commit_sha)
  );
  `,
  `
  ALTER TABLE runs ADD COLUMN name TEXT;
  CREATE UNIQUE INDEX runs_by_name ON runs (name) WHERE name IS NOT NULL;
  CREATE INDEX records_by_case ON records (case_id);
  `,
  `
  ALTER TABLE model_calls ADD COLUMN skipped INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE records ADD COLUMN agent_error TEXT;
  `,
  // Calls not made are counts (one row a run and reason), not one zero-cost row each; critic
  // verdicts are kept by the content judged, so an identical trace is judged once.
  `
  CREATE TABLE spared_calls (
    role TEXT NOT NULL,
    model TEXT NOT NULL,
    iteration INTEGER,
    run_id TEXT,
    reason TEXT NOT NULL CHECK (reason IN ('policy', 'reused')),
    count INTEGER NOT NULL,
    at TEXT NOT NULL
  );
  CREATE INDEX spared_calls_by_iteration ON spared_calls (iteration);
  CREATE TABLE critic_verdicts (
    key TEXT PRIMARY KEY,
    verdict TEXT NOT NULL,
    at TEXT NOT NULL
  );
  `,
  `
  ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'local';
  CREATE TABLE git_documents (
    blob TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    imported_at TEXT NOT NULL
  );
  `,
  // Model calls made outside an iteration (a discover round) say what they were for.
  `
  ALTER TABLE model_calls ADD COLUMN activity TEXT;
  ALTER TABLE spared_calls ADD COLUMN activity TEXT;
  CREATE INDEX model_calls_by_activity ON model_calls (activity);
  `,
  // The commit a recorded decision wrote (the pending release's, for `approve`): written by the
  // gate on this machine only, never rebuilt from git, so a moved ref cannot change it.
  `
  ALTER TABLE decisions ADD COLUMN recorded_commit TEXT;
  `,
  // The parts of a run's cache key beside its identity columns (critic policy, record format,
  // cases, first trial), so a run that is not reused can say which part differs.
  `
  ALTER TABLE runs ADD COLUMN key_parts TEXT;
  `,
  // Runs and labels read from git are trusted ('git') only when the line committed them; those
  // read from refs/agentdevel/ (anyone may push there) are 'ref': shown, never reused nor sent to
  // a model. Earlier stores did not tell the two apart, so everything read from git becomes 'ref'
  // and every document is read again: the line's documents raise theirs back to 'git'.
  `
  ALTER TABLE git_documents ADD COLUMN origin TEXT NOT NULL DEFAULT 'ref';
  UPDATE runs SET origin = 'ref' WHERE origin = 'git';
  ALTER TABLE symptoms ADD COLUMN origin TEXT NOT NULL DEFAULT 'local';
  UPDATE symptoms SET origin = 'ref' WHERE first_seen_run IS NULL;
  DELETE FROM git_documents;
  `,
  // Runs the spend budget stopped before every case-trial ran (status 'failed'): the next run of
  // the same key resumes from their records. A table beside runs, since runs' status CHECK
  // cannot change without rebuilding the table its records refer to.
  `
  CREATE TABLE stopped_runs (
    run_id TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE
  );
  `,
  // Judge once is keyed without the taxonomy (stages/critic/judge-once): each record names the
  // content its verdict was given on, and a kept verdict says whether the line records it or in
  // which scope it was given, so only what a fresh clone would also hold is reused across commands.
  // Verdicts kept under the older key (with the taxonomy) can never match again: they go.
  `
  ALTER TABLE records ADD COLUMN verdict_key TEXT;
  DELETE FROM critic_verdicts;
  ALTER TABLE critic_verdicts ADD COLUMN on_line INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE critic_verdicts ADD COLUMN scope TEXT;
  `,
];

/** The store was written by a newer agentdevel: its schema is ahead of the migrations known here. */
export class StoreTooNew extends Error {
  constructor(
    readonly version: number,
    readonly known: number,
  ) {
    super(`the store has schema version ${version}; this agentdevel knows versions up to ${known}`);
    this.name = 'StoreTooNew';
  }
}

export function migrate(sql: Sql): void {
  const current = (sql.pragma('user_version') as Array<{ user_version: number }>)[0]?.user_version ?? 0;
  if (current > migrations.length) throw new StoreTooNew(current, migrations.length);
  for (let version = current; version < migrations.length; version += 1) {
    sql.transaction(() => {
      sql.exec(migrations[version] as string);
      sql.pragma(`user_version = ${version + 1}`);
    });
  }
}
