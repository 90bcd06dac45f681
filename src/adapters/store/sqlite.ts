// The one module that imports better-sqlite3 (house rule 6). It is loaded at the first database
// opened, not when this module is: a command that reads only git (`log`) never loads it.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

type DatabaseClass = typeof BetterSqlite3;
let loaded: DatabaseClass | null = null;
const sqlite = (): DatabaseClass => (loaded ??= createRequire(import.meta.url)('better-sqlite3') as DatabaseClass);

/** An error of the database engine (a damaged file, a full disk, a read-only store), by its SQLite code. */
export function sqliteFailure(error: unknown): { readonly code: string; readonly message: string } | null {
  // No database was opened, so no error can be the engine's.
  return loaded !== null && error instanceof loaded.SqliteError ? { code: error.code, message: error.message } : null;
}

export type SqlValue = string | number | bigint | null | Buffer;
export type Row = Record<string, SqlValue>;

export interface Sql {
  run(sql: string, ...params: SqlValue[]): { changes: number; lastInsertRowid: number | bigint };
  get<T = Row>(sql: string, ...params: SqlValue[]): T | undefined;
  all<T = Row>(sql: string, ...params: SqlValue[]): T[];
  exec(sql: string): void;
  transaction<T>(work: () => T): T;
  pragma(statement: string): unknown;
  close(): void;
}

/**
 * Every native handle ever opened stays reachable until the process ends. better-sqlite3 before
 * 13 wraps databases and statements in node::ObjectWrap, and from Node 24.19 an ObjectWrap
 * finalised by a garbage collection that runs outside JavaScript (an idle GC, or during exit)
 * aborts the process (Assertion failed: (env) != nullptr in RemoveEnvironmentCleanupHook).
 * Handles that are never collected are released by Node's own cleanup at exit instead. They are
 * few: one statement per distinct SQL text per open database, and a command opens one or two.
 * better-sqlite3 13 fixes this but needs Node 22, and agentdevel still supports Node 20.
 */
const retained: object[] = [];

export function openSql(file: string): Sql {
  const Database = sqlite();
  const db = new Database(file);
  retained.push(db);
  const cache = new Map<string, BetterSqlite3.Statement>();
  const statement = (sql: string) => {
    let prepared = cache.get(sql);
    if (!prepared) {
      prepared = db.prepare(sql);
      cache.set(sql, prepared);
      retained.push(prepared);
    }
    return prepared;
  };
  // Pragmas go through the same cached statements (db.pragma would prepare a fresh one each time).
  const pragma = (source: string): unknown => {
    const prepared = statement(`PRAGMA ${source}`);
    return prepared.reader ? prepared.all() : prepared.run();
  };
  // WAL lets readers (agentdevel log) work while a run writes; a busy timeout rides out the
  // brief write locks of a concurrent reader instead of failing.
  pragma('journal_mode = WAL');
  pragma('busy_timeout = 5000');
  pragma('foreign_keys = ON');
  return {
    run: (sql, ...params) => statement(sql).run(...params),
    get: <T>(sql: string, ...params: SqlValue[]) => statement(sql).get(...params) as T | undefined,
    all: <T>(sql: string, ...params: SqlValue[]) => statement(sql).all(...params) as T[],
    exec: (sql) => {
      db.exec(sql);
    },
    transaction: <T>(work: () => T) => db.transaction(work)(),
    pragma,
    close: () => db.close(),
  };
}
