// A coined label's definition, written once, from what its cases share: the scorer checks they
// fail, the tools whose calls failed in them, the requirements they break. Not one case's
// sentence (that is kept as an example only). The critic of later runs, the diagnostician and
// the synthesizer read it in the taxonomy, and `agentdevel labels` shows it.
import type { CaseRecord } from './record.ts';
import type { TraceEvent } from './trace.ts';

/** What the failing case-trials of one label have shown so far in a run (counts per case, never records). */
export interface LabelEvidence {
  /** Position of the first case-trial that carried it (case order), for the example. */
  readonly first: { readonly at: number; readonly caseId: string; readonly description: string };
  readonly cases: ReadonlySet<string>;
  /** Feature ("the state scorer's check missing_state_change") → the cases that show it. */
  readonly features: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The features of one failing case-trial: its failed decisive scorer checks, failed tool calls and broken requirements. */
export function caseTrialFeatures(record: Pick<CaseRecord, 'scorer' | 'critic'>, trace: readonly TraceEvent[]): string[] {
  const features = new Set<string>();
  for (const check of record.scorer?.checks ?? []) {
    if (!check.pass && check.decides !== false) features.add(`the ${check.scorer} scorer's check ${check.code ?? 'failed'}`);
  }
  const calls = new Map<string, string>();
  for (const event of trace) {
    if (event.type === 'tool_call') calls.set(event.id, event.name);
    if (event.type === 'tool_result' && !event.ok) features.add(`a ${calls.get(event.id) ?? 'tool'} call that failed`);
  }
  for (const requirement of record.critic?.requirements ?? []) if (!requirement.pass) features.add(`the requirement "${requirement.id}" broken`);
  return [...features];
}

/** Adds one failing case-trial to a label's evidence (`at` orders the example). */
export function addLabelEvidence(evidence: LabelEvidence | undefined, caseTrial: { readonly at: number; readonly caseId: string; readonly description: string; readonly features: readonly string[] }): LabelEvidence {
  const first = !evidence || caseTrial.at < evidence.first.at ? { at: caseTrial.at, caseId: caseTrial.caseId, description: caseTrial.description } : evidence.first;
  const features = new Map(evidence?.features ?? []);
  for (const feature of caseTrial.features) features.set(feature, new Set([...(features.get(feature) ?? []), caseTrial.caseId]));
  return { first, cases: new Set([...(evidence?.cases ?? []), caseTrial.caseId]), features };
}

/** Features shown in the definition: the most shared first, at most this many. */
const SHOWN_FEATURES = 4;
const EXAMPLE_CHARS = 160;

/**
 * The definition: how many cases carry the label, what they share (features in every case
 * first, then those in most, each with its count), and one case's words as an example.
 */
export function labelDefinition(evidence: LabelEvidence): string {
  const n = evidence.cases.size;
  const ranked = [...evidence.features]
    .map(([feature, cases]) => ({ feature, count: cases.size }))
    .filter((f) => f.count * 2 >= n)
    .sort((a, b) => b.count - a.count || (a.feature < b.feature ? -1 : 1))
    .slice(0, SHOWN_FEATURES);
  const all = ranked.filter((f) => f.count === n).map((f) => f.feature);
  const most = ranked.filter((f) => f.count < n).map((f) => `${f.feature} (${f.count} of ${n})`);
  const cases = n === 1 ? 'one case' : `${n} cases`;
  const shared =
    all.length + most.length === 0
      ? `no failed check, tool call or requirement is common to ${n === 1 ? 'it' : 'them'}`
      : [...(all.length > 0 ? [`${n === 1 ? '' : `all ${n} show `}${all.join(', ')}`] : []), ...(most.length > 0 ? [`most show ${most.join(', ')}`] : [])].join('; ');
  // One line: the taxonomy lists a label a line.
  const said = evidence.first.description.replace(/\s+/g, ' ').trim();
  const example = said.length > EXAMPLE_CHARS ? `${said.slice(0, EXAMPLE_CHARS)}…` : said;
  return `the critic's label for ${cases} when it was coined: ${shared.replace(/^ /, '')}. Example (${evidence.first.caseId}): ${example}`;
}
