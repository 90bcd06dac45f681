// Verdicts the critic gave, by the content it judged, so an identical trace is judged once.
import type { CriticVerdict } from '../../domain/record.ts';
import type { VerdictMemo } from '../../domain/ports/record-store.ts';
import type { Sql } from './sqlite.ts';
import { redactedJson, type Now } from './stored-text.ts';

export class VerdictRows implements VerdictMemo {
  constructor(
    private readonly sql: Sql,
    private readonly now: Now,
  ) {}

  /** A verdict the critic gave on exactly this content, or null. */
  criticVerdict(key: string): CriticVerdict | null {
    const row = this.sql.get<{ verdict: string }>(`SELECT verdict FROM critic_verdicts WHERE key = ?`, key);
    return row ? (JSON.parse(row.verdict) as CriticVerdict) : null;
  }

  saveCriticVerdict(key: string, verdict: CriticVerdict): void {
    this.sql.run(`INSERT OR IGNORE INTO critic_verdicts (key, verdict, at) VALUES (?, ?, ?)`, key, redactedJson(verdict), this.now());
  }
}
