// What the synthesizer sees of the failures: for each dominant symptom of the diagnosis, a few
// failing case-trials of the train run it describes (input, expected value, output, the
// scorer's reason, a trace excerpt), within a stated token budget. Symptoms take turns, so each
// gets its first case before any gets a second. Each excerpt keeps first the events of the
// components the credit charges with that failure or the diagnosis names (see
// stages/synthesize/excerpt.ts); budget left once every case has its place widens the excerpts.
import { GRADING_FIELDS, visibleCase } from '../../domain/ports/runtime.ts';
import type { Case } from '../../domain/case.ts';
import type { DiagnosisReport } from '../../domain/diagnosis.ts';
import type { GradientDocument } from '../../domain/gradient.ts';
import type { FailingCaseTrial, SynthesisEvidence } from '../../domain/ports/model.ts';
import { clipValue, type CaseRecord } from '../../domain/record.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { excerptOf, traceExcerpt, type ExcerptFocus } from '../../stages/synthesize/excerpt.ts';
import { recordReason } from '../../stages/report/case-reasons.ts';
import { clipEvent } from '../gate/case-evidence.ts';

/** The estimate the budget is stated in: about 4 characters of JSON a token. */
const CHARS_PER_TOKEN = 4;

export const estimateTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / CHARS_PER_TOKEN);

export interface EvidenceBudget {
  readonly tokens: number;
  readonly casesPerSymptom: number;
}

/** A case shown, with what its excerpt can still grow into. */
interface Shown {
  item: FailingCaseTrial;
  readonly seen: TraceEvent[];
  readonly priority: number[];
}

/** Names in a text, as whole words (a wrapper's or a member's name in the diagnosis's prose). */
const escaped = (name: string): string => name.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
const mentions = (text: string, name: string): boolean => new RegExp(`(^|[^\\w-])${escaped(name)}($|[^\\w-])`).test(text);

/**
 * The components an excerpt keeps first for one failing record of a symptom: the wrappers and
 * members the gradient records charge with an error in that case-trial, and those the diagnosis
 * names in what it says of the symptom.
 */
export function excerptFocus(report: DiagnosisReport, label: string, record: CaseRecord, gradient: GradientDocument | null): ExcerptFocus {
  const tools = new Set<string>();
  const members = new Set<string>();
  const symptom = report.dominantSymptoms.find((s) => s.label === label);
  const prose = [report.summary, symptom?.description ?? '', ...(symptom?.subPatterns ?? []).map((p) => `${p.name} ${p.description}`), ...(report.notes ?? [])].join('\n');
  for (const component of gradient?.components ?? []) {
    if (component.kind !== 'tool' && component.kind !== 'member') continue;
    const name = component.component.slice(component.kind.length + 1);
    const charged = component.introducedErrors.some((e) => e.caseId === record.caseId && e.trial === record.trial);
    if (!charged && !mentions(prose, name)) continue;
    (component.kind === 'tool' ? tools : members).add(name);
  }
  return { tools, members };
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
  gradient: GradientDocument | null = null,
): Promise<SynthesisEvidence> {
  const byCase = new Map(cases.map((c) => [c.id, c]));
  const pools = candidates(report, records);
  const shown = new Map<string, Shown[]>([...pools.keys()].map((label) => [label, []]));
  let used = 0;
  for (let round = 0; round < budget.casesPerSymptom; round += 1) {
    for (const [label, pool] of pools) {
      const record = pool[round];
      const testCase = record ? byCase.get(record.caseId) : undefined;
      if (!record || !testCase) continue;
      const excerpt = traceExcerpt(await readTrace(record), excerptFocus(report, label, record, gradient), clipEvent);
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
      shown.get(label)?.push({ item, seen: excerpt.seen, priority: excerpt.priority });
    }
  }
  used = widenExcerpts([...shown.values()].flat(), budget.tokens, used);
  return {
    budgetTokens: budget.tokens,
    usedTokens: used,
    symptoms: [...pools].map(([label, pool]) => ({ label, cases: (shown.get(label) ?? []).map((s) => s.item), notShown: pool.length - (shown.get(label)?.length ?? 0) })),
  };
}

/**
 * Spends what the budget has left on the excerpts' omitted events, one event per case in turn
 * (the next by each excerpt's priority), until none fits. Returns the tokens used.
 */
function widenExcerpts(shown: readonly Shown[], tokens: number, usedBefore: number): number {
  let used = usedBefore;
  const growing = new Set(shown.filter((s) => s.item.omittedEvents > 0));
  while (growing.size > 0) {
    for (const entry of [...growing]) {
      const room = entry.item.traceExcerpt.length + 1;
      const excerpt = excerptOf(entry.seen, entry.priority, room, clipEvent);
      const item: FailingCaseTrial = { ...entry.item, traceExcerpt: excerpt.events, omittedEvents: excerpt.omitted };
      const extra = estimateTokens(item) - estimateTokens(entry.item);
      if (used + extra > tokens) {
        growing.delete(entry);
        continue;
      }
      used += extra;
      entry.item = item;
      if (item.omittedEvents === 0) growing.delete(entry);
    }
  }
  return used;
}
