import type { BlueprintComponent } from '../../domain/blueprint-components.ts';
import type { ComponentRecord, ContributionBasis, EvidencePointer, GradientClaim, GradientDocument } from '../../domain/gradient.ts';
import { GRADIENT_SCHEMA, pointerText } from '../../domain/gradient.ts';
import type { CaseRecord } from '../../domain/record.ts';
import { checkReason, scorerDecides } from '../../domain/record.ts';
import type { Requirement } from '../../domain/requirements.ts';
import { ORCHESTRATOR, type TraceEvent } from '../../domain/trace.ts';

/** One graded case-trial with its trace and the requirements that hold for its case. */
export interface TrialEvidence {
  readonly record: CaseRecord;
  readonly trace: readonly TraceEvent[];
  readonly requirements: readonly Requirement[];
}

interface Verdict {
  readonly id: string;
  readonly text: string;
  readonly pass: boolean;
  readonly source: 'scorer' | 'requirement';
  readonly pointer: EvidencePointer;
}

/** Each requirement's verdict on one case-trial: the named scorer's when it has one, else the critic's. */
function verdictsOf(runId: string, trial: TrialEvidence): Verdict[] {
  const { record } = trial;
  const at = { runId, caseId: record.caseId, trial: record.trial };
  const verdicts: Verdict[] = [];
  if (scorerDecides(record.scorer)) verdicts.push({ id: 'scorer', text: 'the scorers', pass: record.scorer.pass, source: 'scorer', pointer: { kind: 'scorer', ...at } });
  for (const requirement of trial.requirements) {
    const pass = requirement.scorer !== undefined ? (scorerDecides(record.scorer) ? record.scorer.pass : null) : (record.critic?.requirements?.find((r) => r.id === requirement.id)?.pass ?? null);
    if (pass === null) continue;
    verdicts.push({ id: requirement.id, text: requirement.text, pass, source: 'requirement', pointer: { kind: 'requirement', ...at, requirement: requirement.id } });
  }
  return verdicts;
}

/**
 * The member an event belongs to, when a crew's trace names one (`member` or `agent` on the
 * event): traces of single-agent blueprints name none.
 */
export function eventMember(event: TraceEvent): string | null {
  const named = event as unknown as { member?: unknown; agent?: unknown };
  if (typeof named.member === 'string' && named.member !== '') return named.member;
  if (typeof named.agent === 'string' && named.agent !== '') return named.agent;
  return null;
}

/** The key of a call site across a run, as the helpfulness judge's verdicts are keyed (credit's siteKey). */
export const callSiteKey = (caseId: string, trial: number, callId: string): string => `${caseId}#${trial}:${callId}`;

/** Facts a result carries that a later event can repeat: ids, amounts, dates (tokens with a digit, 3 characters or more). */
const FACTS = /\b[\w.-]*\d[\w.-]*\b/g;
const factsOf = (value: unknown): string[] => (JSON.stringify(value ?? '').match(FACTS) ?? []).filter((f) => f.length >= 3);

function textOf(event: TraceEvent): string {
  if (event.type === 'message') return event.text;
  if (event.type === 'tool_call') return JSON.stringify(event.args);
  if (event.type === 'final') return JSON.stringify(event.output);
  return '';
}

/** The facts of the wrong value a check found that the expected value lacks: digit tokens, or a short text as a whole JSON string. */
function wrongFacts(actual: unknown, expected: unknown): string[] {
  if (typeof actual === 'string' && actual.length >= 2 && factsOf(actual).length === 0) return actual === expected ? [] : [JSON.stringify(actual)];
  const right = new Set(factsOf(expected));
  return [...new Set(factsOf(actual))].filter((fact) => !right.has(fact));
}

const carries = (result: unknown, fact: string): boolean => (fact.startsWith('"') ? JSON.stringify(result ?? '').includes(fact) : factsOf(result).includes(fact));

/**
 * Where the scorer's failures come from: for each failed check, the first tool result (of a
 * wrapper or a member the main agent called) that already carries the wrong value the check
 * found. The component that returned it is charged with the failure: it is what the evidence
 * shows, however the answer built on it reads. A wrong value that first appears in the main
 * agent's own words charges nothing here (the main prompt is the synthesizer's first target anyway).
 */
function scorerFailureOrigins(record: CaseRecord, trace: readonly TraceEvent[], calls: ReadonlyMap<number, string>): Array<{ component: string; event: number; message: string }> {
  if (!scorerDecides(record.scorer) || record.scorer.pass) return [];
  const origins: Array<{ component: string; event: number; message: string }> = [];
  for (const check of record.scorer.checks.filter((c) => !c.pass && c.actual !== undefined)) {
    const facts = wrongFacts(check.actual, check.expected);
    if (facts.length === 0) continue;
    const event = trace.findIndex((e, index) => e.type === 'tool_result' && e.ok && calls.has(index) && facts.some((fact) => carries(e.result, fact)));
    const component = calls.get(event);
    if (event < 0 || component === undefined) continue;
    origins.push({ component, event, message: `${checkReason(check)}: the wrong value first appears in this result` });
  }
  return origins;
}

interface Contribution {
  readonly component: string;
  readonly event: number;
  readonly basis: ContributionBasis;
}

/**
 * Which components acted in a trace (and at which events), the errors each introduced, and where
 * each contributed. A wrapper or a member contributed through a call the judge found helpful; with
 * no verdict for the call, through a call that succeeded and changed the environment's state or
 * whose result (an id, an amount, a date it returned) shows up in a later event. The main agent
 * (the single agent, or the orchestrator) contributed when it gave the answer that was graded.
 */
function attribute(trace: readonly TraceEvent[], components: readonly BlueprintComponent[], helpful: (callId: string) => boolean | undefined) {
  const tools = new Map(components.filter((c) => c.kind === 'tool').map((c) => [c.name, c]));
  const members = new Map(components.filter((c) => c.kind === 'member').map((c) => [c.name, c]));
  const main = components.find((c) => c.kind === 'agent' || c.kind === 'orchestrator');
  const acted = new Map<string, number[]>();
  const errors: Array<{ component: string; event: number; message: string }> = [];
  const contributions: Contribution[] = [];
  // Call ids are unique within one agent's events: a result is matched by its agent and id.
  const calls = new Map<string, string>();
  /** The component whose result each tool_result event is, by the event's position. */
  const results = new Map<number, string>();
  const note = (component: string, event: number) => acted.set(component, [...(acted.get(component) ?? []), event]);
  const ownerOf = (event: TraceEvent): BlueprintComponent | undefined => {
    const member = eventMember(event);
    return member !== null && member !== ORCHESTRATOR ? members.get(member) : main;
  };
  trace.forEach((event, index) => {
    const owner = ownerOf(event);
    if (owner) note(owner.id, index);
    const callKey = (id: string) => `${eventMember(event) ?? ''}\u0000${id}`;
    if (event.type === 'tool_call') {
      // A wrapper by its name; a member when the orchestrator calls it as a tool.
      const called = tools.get(event.name) ?? (owner === main ? members.get(event.name) : undefined);
      if (called) {
        note(called.id, index);
        calls.set(callKey(event.id), called.id);
      }
    }
    if (event.type === 'tool_result') {
      const called = calls.get(callKey(event.id));
      if (called) results.set(index, called);
      if (!event.ok) {
        // The wrapper (or member) that failed, and the member whose call it was: both records show the error.
        if (called) errors.push({ component: called, event: index, message: event.error ?? 'the call failed' });
        if (owner && owner.kind === 'member' && owner.id !== called) errors.push({ component: owner.id, event: index, message: event.error ?? 'a tool failed' });
      }
      if (called) {
        const verdict = helpful(event.id);
        const used = event.ok && (event.stateChanged === true || factsOf(event.result).some((fact) => trace.slice(index + 1).some((later) => textOf(later).includes(fact))));
        if (verdict ?? used) contributions.push({ component: called, event: index, basis: verdict === undefined ? 'result-used' : 'judge' });
      }
    }
    if (event.type === 'error' && event.kind === 'agent' && owner) errors.push({ component: owner.id, event: index, message: event.message });
    if (event.type === 'final' && main) contributions.push({ component: main.id, event: index, basis: 'final-answer' });
  });
  return { acted, errors, contributions, results };
}

/**
 * The gradient records of one run, from executed evidence only: trace events (which component
 * acted, which call failed, whose result was used) and verdicts (the scorers', each
 * requirement's, and the helpfulness judge's when it ran). A component fulfilled a requirement
 * when the requirement held in a case-trial it contributed to (see attribute) without an error
 * of its own: taking part is not enough, so a member whose answers nobody uses fulfils nothing.
 * It introduced an error where its call failed (or its own events show an agent error). A
 * requirement that failed where no component introduced an error is a missing sub-task,
 * recorded on the main prompt's first section (the charter, where a new sub-task is added), or
 * on the agent when it has no prompt (a command agent).
 */
export function buildGradient(input: {
  readonly iteration: number;
  readonly blueprint: string;
  readonly release: string;
  readonly runId: string;
  readonly components: readonly BlueprintComponent[];
  readonly trials: readonly TrialEvidence[];
  /** The helpfulness judge's verdicts by call site (callSiteKey), when credit.helpfulness ran; null otherwise. */
  readonly helpful?: ReadonlyMap<string, boolean> | null;
}): GradientDocument {
  const records = new Map<string, ComponentRecord>(
    input.components.map((c) => [
      c.id,
      { component: c.id, kind: c.kind, path: c.path, fulfilled: [], contributions: [], introducedErrors: [], missing: [], evidence: { caseIds: [], pointers: [], verdicts: [] }, claims: [] },
    ]),
  );
  const charter = input.components.find((c) => c.kind === 'section') ?? input.components.find((c) => c.kind === 'agent' || c.kind === 'orchestrator');
  const missing = new Map<string, { text: string; caseIds: Set<string>; pointers: EvidencePointer[] }>();
  const addCase = (record: ComponentRecord, caseId: string) => {
    if (!record.evidence.caseIds.includes(caseId)) record.evidence.caseIds.push(caseId);
  };
  for (const trial of input.trials) {
    if (trial.record.status !== 'ok') continue;
    const { caseId, trial: n } = trial.record;
    const at = { runId: input.runId, caseId, trial: n };
    const verdicts = verdictsOf(input.runId, trial);
    const attributed = attribute(trial.trace, input.components, (callId) => input.helpful?.get(callSiteKey(caseId, n, callId)));
    const { acted, contributions } = attributed;
    const errors = [...attributed.errors, ...scorerFailureOrigins(trial.record, trial.trace, attributed.results)];
    for (const error of errors) {
      const record = records.get(error.component);
      if (!record) continue;
      const pointer: EvidencePointer = { kind: 'trace_event', ...at, event: error.event };
      record.introducedErrors.push({ caseId, trial: n, message: error.message, pointer });
      record.evidence.pointers.push(pointer);
      addCase(record, caseId);
    }
    for (const [component, events] of acted) {
      const record = records.get(component);
      if (!record) continue;
      addCase(record, caseId);
      record.evidence.pointers.push({ kind: 'trace_event', ...at, event: events[0] ?? 0 });
      for (const verdict of verdicts) {
        record.evidence.verdicts.push({ caseId, trial: n, source: verdict.source, id: verdict.id, pass: verdict.pass });
        record.evidence.pointers.push(verdict.pointer);
      }
    }
    for (const component of new Set(contributions.map((c) => c.component))) {
      const record = records.get(component);
      const first = contributions.find((c) => c.component === component);
      if (!record || !first) continue;
      const pointer: EvidencePointer = { kind: 'trace_event', ...at, event: first.event };
      record.contributions.push({ caseId, trial: n, basis: first.basis, pointer });
      record.evidence.pointers.push(pointer);
      if (errors.some((e) => e.component === component)) continue;
      for (const verdict of verdicts) {
        if (verdict.pass && verdict.source === 'requirement' && !record.fulfilled.includes(verdict.id)) record.fulfilled.push(verdict.id);
      }
    }
    if (errors.length === 0) {
      for (const verdict of verdicts.filter((v) => !v.pass && v.source === 'requirement')) {
        const entry = missing.get(verdict.id) ?? { text: verdict.text, caseIds: new Set<string>(), pointers: [] };
        entry.caseIds.add(caseId);
        entry.pointers.push(verdict.pointer);
        missing.set(verdict.id, entry);
      }
    }
  }
  const charterRecord = charter ? records.get(charter.id) : undefined;
  if (charterRecord) {
    for (const entry of missing.values()) {
      charterRecord.missing.push({ text: entry.text, caseIds: [...entry.caseIds].sort(), pointers: entry.pointers });
      for (const caseId of entry.caseIds) addCase(charterRecord, caseId);
      charterRecord.evidence.pointers.push(...entry.pointers);
    }
  }
  for (const record of records.values()) {
    record.evidence.caseIds.sort();
    record.evidence.pointers = dedupe(record.evidence.pointers);
  }
  return { schema: GRADIENT_SCHEMA, iteration: input.iteration, blueprint: input.blueprint, release: input.release, runId: input.runId, components: [...records.values()], dropped: { count: 0, claims: [] } };
}

function dedupe(pointers: readonly EvidencePointer[]): EvidencePointer[] {
  const seen = new Set<string>();
  return pointers.filter((p) => {
    const key = pointerText(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Where a pointer may lead: the events of each record's trace and its verdicts. */
export interface EvidenceIndex {
  resolves(pointer: EvidencePointer): boolean;
}

export function evidenceIndex(runId: string, trials: readonly TrialEvidence[]): EvidenceIndex {
  const byKey = new Map(trials.map((t) => [`${t.record.caseId}#${t.record.trial}`, t]));
  return {
    resolves(pointer) {
      if (pointer.runId !== runId) return false;
      const trial = byKey.get(`${pointer.caseId}#${pointer.trial}`);
      if (!trial) return false;
      switch (pointer.kind) {
        case 'trace_event':
          return pointer.event < trial.trace.length;
        case 'scorer':
          return scorerDecides(trial.record.scorer);
        case 'requirement':
          return verdictsOf(runId, trial).some((v) => v.source === 'requirement' && v.id === pointer.requirement);
        default: {
          const exhaustive: never = pointer;
          return exhaustive;
        }
      }
    },
  };
}

/**
 * Adds the claims a model phrased over the records: a claim is kept when it names a component
 * of the document and cites at least one pointer, every one of which resolves; any other is
 * dropped and counted.
 */
export function admitClaims(document: GradientDocument, claims: readonly GradientClaim[], index: EvidenceIndex): GradientDocument {
  const components = new Map(document.components.map((c) => [c.component, { ...c, claims: [...c.claims] }]));
  const dropped = [...document.dropped.claims];
  for (const claim of claims) {
    const record = components.get(claim.component);
    const unresolved = claim.pointers.filter((p) => !index.resolves(p));
    const reason = !record
      ? `no component "${claim.component}" in this blueprint`
      : claim.pointers.length === 0
        ? 'it cites no evidence'
        : unresolved.length > 0
          ? `its evidence does not resolve: ${unresolved.map(pointerText).join(', ')}`
          : null;
    if (reason || !record) {
      dropped.push({ component: claim.component, text: claim.text, reason: reason ?? 'unknown component' });
      continue;
    }
    record.claims.push(claim);
  }
  return { ...document, components: [...components.values()], dropped: { count: dropped.length, claims: dropped } };
}
