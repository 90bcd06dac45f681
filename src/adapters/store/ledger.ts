// The cost ledger: every model call with its tokens and dollars, charged to an iteration, a run
// and an activity (a discover round), and the calls not made (spared by the critic policy, or
// a verdict reused), as counts. Part of the store's database; the store hands it its connection.
import type { CallRole, Role, Usage } from '../../domain/ports/model.ts';
import type { ActivityCost, CostBook, IterationCost, LedgerScope, RunPurpose, SpareReason, SpendHistory } from '../../domain/ports/record-store.ts';
import type { Sql } from './sqlite.ts';

export class CostLedger implements CostBook {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => string,
  ) {}

  recordModelCall(role: CallRole, model: string, usage: Usage, context: LedgerScope): void {
    this.sql.run(
      `INSERT INTO model_calls (role, model, iteration, run_id, activity, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      role,
      model,
      context.iteration,
      context.runId,
      context.activity ?? null,
      usage.inputTokens,
      usage.outputTokens,
      usage.cacheReadTokens,
      usage.cacheWriteTokens,
      usage.costUsd,
      this.now(),
    );
  }

  /**
   * Calls not made, as one count: "policy" for those the critic policy spared (passing
   * case-trials), "reused" for verdicts given once for an identical trace.
   */
  recordSparedCalls(role: Role, model: string, count: number, reason: SpareReason, context: LedgerScope): void {
    if (count <= 0) return;
    this.sql.run(
      `INSERT INTO spared_calls (role, model, iteration, run_id, activity, reason, count, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      role,
      model,
      context.iteration,
      context.runId,
      context.activity ?? null,
      reason,
      count,
      this.now(),
    );
  }

  /** What the model calls of one activity (a discover round) cost, per role: the ledger's rows for it. */
  costOfActivity(activity: string): ActivityCost {
    const rows = this.sql.all<{ role: string; calls: number; input: number; output: number; cost: number }>(
      `SELECT role, COUNT(*) AS calls, COALESCE(SUM(input_tokens + cache_read_tokens + cache_write_tokens), 0) AS input, COALESCE(SUM(output_tokens), 0) AS output, COALESCE(SUM(cost_usd), 0) AS cost
       FROM model_calls WHERE activity = ? AND skipped = 0 GROUP BY role ORDER BY role`,
      activity,
    );
    const byRole = rows.map((r) => ({ role: String(r.role), calls: Number(r.calls), inputTokens: Number(r.input), outputTokens: Number(r.output), costUsd: Number(r.cost) }));
    return {
      calls: byRole.reduce((n, r) => n + r.calls, 0),
      inputTokens: byRole.reduce((n, r) => n + r.inputTokens, 0),
      outputTokens: byRole.reduce((n, r) => n + r.outputTokens, 0),
      costUsd: byRole.reduce((n, r) => n + r.costUsd, 0),
      byRole,
    };
  }

  /** What each run that called a model cost (with its case-trials), and each iteration's calls outside runs, per role. */
  spendHistory(): SpendHistory {
    const runs = this.sql.all<{ run: string; purpose: string; cases: number; iteration: number | null; calls: number; tokens: number; cost: number }>(
      `SELECT m.run_id AS run, r.purpose AS purpose, COALESCE(r.cases, 0) AS cases, MAX(m.iteration) AS iteration, COUNT(*) AS calls,
              COALESCE(SUM(m.input_tokens + m.output_tokens + m.cache_read_tokens + m.cache_write_tokens), 0) AS tokens, COALESCE(SUM(m.cost_usd), 0) AS cost
       FROM model_calls m JOIN runs r ON r.id = m.run_id WHERE m.skipped = 0 GROUP BY m.run_id ORDER BY MIN(m.id)`,
    );
    const outside = this.sql.all<{ iteration: number; role: string; calls: number; tokens: number; cost: number }>(
      `SELECT iteration, role, COUNT(*) AS calls, COALESCE(SUM(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens), 0) AS tokens, COALESCE(SUM(cost_usd), 0) AS cost
       FROM model_calls WHERE run_id IS NULL AND iteration IS NOT NULL AND skipped = 0 GROUP BY iteration, role ORDER BY iteration, role`,
    );
    return {
      runs: runs.map((r) => ({ runId: String(r.run), purpose: String(r.purpose) as RunPurpose, caseTrials: Number(r.cases), iteration: r.iteration === null ? null : Number(r.iteration), requests: Number(r.calls), tokens: Number(r.tokens), costUsd: Number(r.cost) })),
      outsideRuns: outside.map((r) => ({ iteration: Number(r.iteration), role: String(r.role), requests: Number(r.calls), tokens: Number(r.tokens), costUsd: Number(r.cost) })),
    };
  }

  /** Rows in the ledger (model calls made, and stores from before counts: one per call spared). */
  modelCallRows(): number {
    return Number(this.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM model_calls`)?.n ?? 0);
  }

  costOfIteration(iteration: number): IterationCost {
    const row = this.sql.get<{ cost: number; input: number; output: number; calls: number; skipped: number }>(
      `SELECT COALESCE(SUM(cost_usd), 0) AS cost, COALESCE(SUM(input_tokens), 0) AS input, COALESCE(SUM(output_tokens), 0) AS output,
              COALESCE(SUM(skipped = 0), 0) AS calls, COALESCE(SUM(skipped = 1 AND role = 'critic'), 0) AS skipped
       FROM model_calls WHERE iteration = ?`,
      iteration,
    );
    const spared = this.sql.get<{ policy: number; reused: number }>(
      `SELECT COALESCE(SUM(CASE WHEN reason = 'policy' THEN count END), 0) AS policy, COALESCE(SUM(CASE WHEN reason = 'reused' THEN count END), 0) AS reused
       FROM spared_calls WHERE iteration = ? AND role = 'critic'`,
      iteration,
    );
    // Stores written before counts keep one zero-cost row per spared call: both are read.
    const skipped = Number(row?.skipped ?? 0) + Number(spared?.policy ?? 0);
    const reused = Number(spared?.reused ?? 0);
    return {
      costUsd: row?.cost ?? 0,
      inputTokens: row?.input ?? 0,
      outputTokens: row?.output ?? 0,
      calls: Number(row?.calls ?? 0),
      skippedCriticCalls: skipped,
      reusedCriticCalls: reused,
      savedUsd: skipped + reused === 0 ? null : this.meanCriticCallCost(iteration, skipped + reused),
    };
  }

  /** What the skipped critic calls would have cost, at the mean cost of the critic calls actually made (null when none was billed). */
  private meanCriticCallCost(iteration: number, skipped: number): number | null {
    const row = this.sql.get<{ cost: number; n: number }>(
      `SELECT COALESCE(SUM(cost_usd), 0) AS cost, COUNT(*) AS n FROM model_calls WHERE iteration = ? AND role = 'critic' AND skipped = 0 AND cost_usd > 0`,
      iteration,
    );
    const n = Number(row?.n ?? 0);
    return n === 0 ? null : (Number(row?.cost ?? 0) / n) * skipped;
  }
}
