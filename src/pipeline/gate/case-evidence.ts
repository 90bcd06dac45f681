import { visibleCase } from '../../domain/ports/runtime.ts';
import type { Case } from '../../domain/case.ts';
import { CASE_EVIDENCE_SCHEMA, type CaseEvidence, type CaseEvidenceDocument, type RunStatsEvidence, type SideEvidence } from '../../domain/case-evidence.ts';
import type { GateDecision } from '../../domain/decision.ts';
import { clipValue, type CaseRecord } from '../../domain/record.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { recordReason } from '../../stages/report/case-reasons.ts';
import type { RunStats } from '../../stages/gate/compare.ts';
import { readTraceOrNote } from '../../stages/run/trace-file.ts';

/** Traces are cut to this many events a trial (the start and the end are kept), diffs to this many characters. */
const MAX_EVENTS = 60;
const MAX_DIFF = 60_000;

export interface CaseEvidenceInput {
  readonly decision: GateDecision;
  readonly cases: readonly Case[];
  /** What the agent never saw of a case (`Task.gradingPaths`): the input is shown as the agent saw it. */
  readonly gradingPaths: readonly string[];
  readonly baselineRecords: readonly CaseRecord[];
  readonly candidateRecords: readonly CaseRecord[];
  readonly runs: { readonly baseline: (RunStats & { runId: string }) | null; readonly candidate: (RunStats & { runId: string }) | null };
  readonly tracesRoot: string;
  readonly diff: string;
  /**
   * Each side's pass counts over all of the gate's screening runs (the baseline's records
   * included), as the decision and report.md count them; the trial shown comes from the records.
   */
  readonly screenCounts?: { readonly baseline: ReadonlyMap<string, ScreenCount>; readonly candidate: ReadonlyMap<string, ScreenCount> };
}

interface ScreenCount {
  readonly passes: number;
  readonly graded: number;
}

/** Deep-clips every string and large value of a trace event, so a chatty agent cannot bloat the document. */
export function clipEvent(event: TraceEvent): TraceEvent {
  const clip = (value: unknown): unknown => {
    if (typeof value === 'string') return clipValue(value);
    if (Array.isArray(value)) return value.slice(0, 20).map(clip);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clip(v)]));
    return value;
  };
  return clip(event) as TraceEvent;
}

function shortTrace(events: readonly TraceEvent[]): { trace: TraceEvent[]; omittedEvents: number } {
  if (events.length <= MAX_EVENTS) return { trace: events.map(clipEvent), omittedEvents: 0 };
  const head = events.slice(0, MAX_EVENTS - 10);
  const tail = events.slice(-10);
  return { trace: [...head, ...tail].map(clipEvent), omittedEvents: events.length - MAX_EVENTS };
}

async function side(records: readonly CaseRecord[], caseId: string, tracesRoot: string, counted: ScreenCount | undefined): Promise<SideEvidence> {
  const mine = records.filter((r) => r.caseId === caseId);
  const graded = mine.filter((r) => r.pass !== null);
  const shown = mine.find((r) => r.pass === false) ?? mine[0];
  if (!shown) return { passes: counted?.passes ?? 0, graded: counted?.graded ?? 0, shown: null };
  // A trace that is gone or damaged (traces/ is not in git) leaves the grading, which the records hold.
  const events = await readTraceOrNote(tracesRoot, shown.traceRef, []);
  return {
    passes: counted?.passes ?? graded.filter((r) => r.pass).length,
    graded: counted?.graded ?? graded.length,
    shown: {
      trial: shown.trial,
      status: shown.status,
      pass: shown.pass,
      output: clipValue(shown.output) ?? null,
      scorer: shown.scorer,
      critic: shown.critic,
      agentError: shown.agentError ?? null,
      error: shown.error,
      reason: recordReason(shown),
      ...shortTrace(events),
    },
  };
}

const runStats = (run: CaseEvidenceInput['runs']['baseline']): RunStatsEvidence | null =>
  run ? { runId: run.runId, passRate: run.passRate, passHat: run.passHat, passAt: run.passAt, cases: run.cases, trials: run.trials } : null;

/** The evidence of every case the decision names (fixes, regressions, moves within noise), from the records and traces of its runs. */
export async function gatherCaseEvidence(input: CaseEvidenceInput): Promise<CaseEvidenceDocument> {
  const byId = new Map(input.cases.map((c) => [c.id, c]));
  const named: Array<[string, CaseEvidence['kind']]> = [
    ...input.decision.f2p.map((id) => [id, 'fix'] as [string, CaseEvidence['kind']]),
    ...input.decision.p2f.map((id) => [id, 'regression'] as [string, CaseEvidence['kind']]),
    ...input.decision.flaky.map((id) => [id, 'flaky'] as [string, CaseEvidence['kind']]),
  ];
  const cases: CaseEvidence[] = [];
  for (const [caseId, kind] of named) {
    const testCase = byId.get(caseId);
    cases.push({
      caseId,
      kind,
      input: testCase ? clipValue(visibleCase(testCase, input.gradingPaths)) : null,
      expected: clipValue(testCase?.expected) ?? null,
      baseline: await side(input.baselineRecords, caseId, input.tracesRoot, input.screenCounts?.baseline.get(caseId)),
      candidate: await side(input.candidateRecords, caseId, input.tracesRoot, input.screenCounts?.candidate.get(caseId)),
    });
  }
  const truncated = input.diff.length > MAX_DIFF;
  return {
    schema: CASE_EVIDENCE_SCHEMA,
    runs: { baseline: runStats(input.runs.baseline), candidate: runStats(input.runs.candidate) },
    cases,
    diff: truncated ? input.diff.slice(0, MAX_DIFF) : input.diff,
    diffTruncated: truncated,
  };
}
