// The one module that imports better-sqlite3 (house rule 6).
import Database from 'better-sqlite3';

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

export function openSql(file: string): Sql {
  const db = new Database(file);
  // WAL lets readers (agentdevel log) work while a run writes; a busy timeout rides out the
  // brief write locks of a concurrent reader instead of failing.
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  const cache = new Map<string, Database.Statement>();
  const statement = (sql: string) => {
    let prepared = cache.get(sql);
    if (!prepared) {
      prepared = db.prepare(sql);
      cache.set(sql, prepared);
    }
    return prepared;
  };
  return {
    run: (sql, ...params) => statement(sql).run(...params),
    get: <T>(sql: string, ...params: SqlValue[]) => statement(sql).get(...params) as T | undefined,
    all: <T>(sql: string, ...params: SqlValue[]) => statement(sql).all(...params) as T[],
    exec: (sql) => {
      db.exec(sql);
    },
    transaction: <T>(work: () => T) => db.transaction(work)(),
    pragma: (s) => db.pragma(s),
    close: () => db.close(),
  };
}
