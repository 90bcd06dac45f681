// What the synthesizer sees of the failures: for each dominant symptom of the diagnosis, a few
// failing case-trials of the train run it describes (input, expected value, output, the
// scorer's reason, a trace excerpt), within a stated token budget. Symptoms take turns, so each
// gets its first case before any gets a second.
import { GRADING_FIELDS, visibleCase } from '../../domain/ports/runtime.ts';
import type { Case } from '../../domain/case.ts';
import type { DiagnosisReport } from '../../domain/diagnosis.ts';
import type { FailingCaseTrial, SynthesisEvidence } from '../../domain/ports/model.ts';
import { clipValue, type CaseRecord } from '../../domain/record.ts';
import { criticView, type TraceEvent } from '../../domain/trace.ts';
import { recordReason } from '../../stages/report/case-reasons.ts';
import { clipEvent } from '../gate/case-evidence.ts';

/** Events kept of a trace: the first and the last, where the request and the outcome are. */
const HEAD_EVENTS = 3;
const TAIL_EVENTS = 9;
/** The estimate the budget is stated in: about 4 characters of JSON a token. */
const CHARS_PER_TOKEN = 4;

export const estimateTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / CHARS_PER_TOKEN);

export interface EvidenceBudget {
  readonly tokens: number;
  readonly casesPerSymptom: number;
}

export function traceExcerpt(trace: readonly TraceEvent[]): { events: TraceEvent[]; omitted: number } {
  const seen = criticView(trace);
  if (seen.length <= HEAD_EVENTS + TAIL_EVENTS) return { events: seen.map(clipEvent), omitted: 0 };
  return { events: [...seen.slice(0, HEAD_EVENTS), ...seen.slice(-TAIL_EVENTS)].map(clipEvent), omitted: seen.length - HEAD_EVENTS - TAIL_EVENTS };
}

/** The failing records of each dominant symptom: those the critic labelled so, else those the report lists under it. */
function candidates(report: DiagnosisReport, records: readonly CaseRecord[]): Map<string, CaseRecord[]> {
  const failing = records.filter((r) => r.pass === false);
  const byLabel = new Map<string, CaseRecord[]>();
  for (const symptom of report.dominantSymptoms) {
    const listed = new Set(report.affectedSurface.find((a) => a.label === symptom.label)?.caseIds ?? []);
    const labelled = failing.filter((r) => r.critic?.label === symptom.label);
    const chosen = labelled.length > 0 ? labelled : failing.filter((r) => listed.has(r.caseId));
    const oneEach = new Map<string, CaseRecord>();
    for (const record of chosen) if (!oneEach.has(record.caseId)) oneEach.set(record.caseId, record);
    byLabel.set(symptom.label, [...oneEach.values()]);
  }
  return byLabel;
}

export async function synthesisEvidence(
  report: DiagnosisReport,
  records: readonly CaseRecord[],
  cases: readonly Case[],
  readTrace: (record: CaseRecord) => Promise<TraceEvent[]>,
  budget: EvidenceBudget,
): Promise<SynthesisEvidence> {
  const byCase = new Map(cases.map((c) => [c.id, c]));
  const pools = candidates(report, records);
  const shown = new Map<string, FailingCaseTrial[]>([...pools.keys()].map((label) => [label, []]));
  let used = 0;
  for (let round = 0; round < budget.casesPerSymptom; round += 1) {
    for (const [label, pool] of pools) {
      const record = pool[round];
      const testCase = record ? byCase.get(record.caseId) : undefined;
      if (!record || !testCase) continue;
      const excerpt = traceExcerpt(await readTrace(record));
      const item: FailingCaseTrial = {
        caseId: record.caseId,
        trial: record.trial,
        // The expected value is shown beside the input (the synthesizer's evidence), the rest of the grading not at all.
        input: clipValue(visibleCase(testCase, GRADING_FIELDS)),
        expected: clipValue(testCase.expected ?? null),
        output: clipValue(record.output) ?? null,
        reason: recordReason(record),
        traceExcerpt: excerpt.events,
        omittedEvents: excerpt.omitted,
      };
      const cost = estimateTokens(item);
      if (used + cost > budget.tokens) continue;
      used += cost;
      shown.get(label)?.push(item);
    }
  }
  return {
    budgetTokens: budget.tokens,
    usedTokens: used,
    symptoms: [...pools].map(([label, pool]) => ({ label, cases: shown.get(label) ?? [], notShown: pool.length - (shown.get(label)?.length ?? 0) })),
  };
}
