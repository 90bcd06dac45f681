// Verdicts the critic gave, by the content it judged, so an identical trace is judged once.
import type { CriticVerdict } from '../../domain/record.ts';
import type { KeptVerdict, VerdictMemo } from '../../domain/ports/record-store.ts';
import type { Sql } from './sqlite.ts';
import { redactedJson, type Now } from './stored-text.ts';

export class VerdictRows implements VerdictMemo {
  constructor(
    private readonly sql: Sql,
    private readonly now: Now,
  ) {}

  /** The verdict kept for exactly this content, whether the line records it and the scope it was given in; null when none is kept. */
  keptVerdict(key: string): KeptVerdict | null {
    const row = this.sql.get<{ verdict: string; on_line: number; scope: string | null }>(`SELECT verdict, on_line, scope FROM critic_verdicts WHERE key = ?`, key);
    return row ? { verdict: JSON.parse(row.verdict) as CriticVerdict, onLine: Number(row.on_line) === 1, scope: row.scope === null ? null : String(row.scope) } : null;
  }

  /** A verdict the critic just gave: it replaces one kept for the content (which was not reusable here), and is not the line's until a run that records it is. */
  saveCriticVerdict(key: string, verdict: CriticVerdict, scope: string): void {
    this.sql.run(
      `INSERT INTO critic_verdicts (key, verdict, at, on_line, scope) VALUES (?, ?, ?, 0, ?)
       ON CONFLICT (key) DO UPDATE SET verdict = excluded.verdict, at = excluded.at, on_line = 0, scope = excluded.scope`,
      key,
      redactedJson(verdict),
      this.now(),
      scope,
    );
  }

  /** Verdicts a runs.json on the line records: the line's verdict for the content wins, and may be reused by any command. */
  keepLineVerdicts(verdicts: ReadonlyArray<{ readonly key: string; readonly verdict: CriticVerdict }>): void {
    this.sql.transaction(() => {
      for (const { key, verdict } of verdicts) {
        this.sql.run(
          `INSERT INTO critic_verdicts (key, verdict, at, on_line, scope) VALUES (?, ?, ?, 1, NULL)
           ON CONFLICT (key) DO UPDATE SET verdict = excluded.verdict, on_line = 1`,
          key,
          redactedJson(verdict),
          this.now(),
        );
      }
    });
  }
}
