import type { RunCounts } from '../case-summary.ts';
import type { RecordStatus } from '../record.ts';

/** What stages tell the outside world. Stages never print; the CLI decides how to show these. */
export type ProgressEvent =
  | { readonly type: 'stage'; readonly stage: string; readonly message: string }
  | { readonly type: 'run.started'; readonly runId: string; readonly label: string; readonly total: number }
  | {
      readonly type: 'case.finished';
      readonly runId: string;
      readonly caseId: string;
      readonly trial: number;
      readonly status: RecordStatus;
      readonly pass: boolean | null;
    }
  | {
      readonly type: 'run.finished';
      readonly runId: string;
      readonly label: string;
      readonly passRate: number;
      readonly reused: boolean;
      /** Where reused records came from: this store's own run, or a run recorded in git with a decision. */
      readonly reusedFrom?: 'store' | 'git';
      /** Case-trials, graded, passed, and infrastructure errors (shown whenever there are any). */
      readonly counts: RunCounts;
    }
  | { readonly type: 'warning'; readonly message: string };

export interface Reporter {
  emit(event: ProgressEvent): void;
}

export const silentReporter: Reporter = { emit: () => undefined };
