import type { CaseRecord } from './record.ts';

/** A case's outcome in one run: passing, failing, or not gradable (infra errors only). */
export type CaseOutcome = 'pass' | 'fail' | 'unknown';

/**
 * One case of a run, as the gate and the reports need it: pass counts, not records. A run
 * keeps one of these per case, so its memory grows with the cases, never with their traces.
 */
export interface CaseSummary {
  readonly caseId: string;
  /** Case-trials recorded, graded or not (infrastructure errors are trials without a verdict). */
  readonly trials: number;
  readonly passes: number;
  readonly graded: number;
  readonly outcome: CaseOutcome;
  /** The critic's label of the first failing trial (the baseline symptom used for the hit rate). */
  readonly symptom: string | null;
  readonly description: string | null;
}

/** What a summary needs of a record. */
export type GradedTrial = Pick<CaseRecord, 'caseId' | 'trial' | 'status' | 'pass' | 'critic'>;

interface Counts {
  trials: number;
  passes: number;
  graded: number;
  /** The lowest failing graded trial and its verdict. */
  failing: { trial: number; label: string | null; description: string | null } | null;
}

export interface CaseSummarizer {
  add(record: GradedTrial): void;
  /** One summary per case, in the order the cases were first named (or seen). */
  summaries(): Map<string, CaseSummary>;
}

/**
 * Collapses a run's records, in any order, to one summary per case. With one trial this is the
 * paper's p(x); with several, a case passes when most graded trials pass (ties fail: a release
 * must not count a coin flip as working). `order` fixes the order of the summaries (the split's
 * order for a fresh run), so it does not depend on which case-trial finished first.
 */
export function caseSummarizer(order: readonly string[] = []): CaseSummarizer {
  const byCase = new Map<string, Counts>();
  const entry = (caseId: string): Counts => {
    let counts = byCase.get(caseId);
    if (!counts) {
      counts = { trials: 0, passes: 0, graded: 0, failing: null };
      byCase.set(caseId, counts);
    }
    return counts;
  };
  for (const caseId of order) entry(caseId);
  return {
    add(record) {
      const counts = entry(record.caseId);
      counts.trials += 1;
      if (record.status !== 'ok' || record.pass === null) return;
      counts.graded += 1;
      if (record.pass) counts.passes += 1;
      else if (counts.failing === null || record.trial < counts.failing.trial) {
        counts.failing = { trial: record.trial, label: record.critic?.label ?? null, description: record.critic?.description ?? null };
      }
    },
    summaries() {
      const summaries = new Map<string, CaseSummary>();
      for (const [caseId, c] of byCase) {
        const outcome: CaseOutcome = c.graded === 0 ? 'unknown' : c.passes * 2 > c.graded ? 'pass' : 'fail';
        summaries.set(caseId, {
          caseId,
          trials: c.trials,
          passes: c.passes,
          graded: c.graded,
          outcome,
          symptom: c.failing?.label ?? null,
          description: c.failing?.description ?? null,
        });
      }
      return summaries;
    },
  };
}

/** Summaries of records already in memory (tests, imports), in the order cases first appear. */
export function summarizeCases(records: Iterable<GradedTrial>): Map<string, CaseSummary> {
  const summarizer = caseSummarizer();
  for (const record of records) summarizer.add(record);
  return summarizer.summaries();
}

/**
 * Several records of one version, pooled per case (a baseline's screen of several records): the
 * counts add up, the outcome is the pooled majority, and the symptom is the first record's that
 * has one. Cases keep the first record's order.
 */
export function poolCaseSummaries(records: ReadonlyArray<ReadonlyMap<string, CaseSummary>>): Map<string, CaseSummary> {
  const pooled = new Map<string, CaseSummary>();
  for (const record of records) {
    for (const summary of record.values()) {
      const before = pooled.get(summary.caseId);
      if (!before) {
        pooled.set(summary.caseId, summary);
        continue;
      }
      const passes = before.passes + summary.passes;
      const graded = before.graded + summary.graded;
      pooled.set(summary.caseId, {
        caseId: summary.caseId,
        trials: before.trials + summary.trials,
        passes,
        graded,
        outcome: graded === 0 ? 'unknown' : passes * 2 > graded ? 'pass' : 'fail',
        symptom: before.symptom ?? summary.symptom,
        description: before.symptom !== null ? before.description : summary.description,
      });
    }
  }
  return pooled;
}

/** Counts over a run's case-trials: what `run`, the progress line and the summaries print. */
export interface RunCounts {
  readonly caseTrials: number;
  readonly graded: number;
  readonly passed: number;
  readonly infraErrors: number;
}

export function runCounts(cases: Iterable<CaseSummary>): RunCounts {
  let caseTrials = 0;
  let graded = 0;
  let passed = 0;
  for (const c of cases) {
    caseTrials += c.trials;
    graded += c.graded;
    passed += c.passes;
  }
  return { caseTrials, graded, passed, infraErrors: caseTrials - graded };
}

/** The pass rate printed for a run: passing case-trials over graded ones. */
export const passRateOf = (counts: RunCounts): number => (counts.graded === 0 ? 0 : counts.passed / counts.graded);
