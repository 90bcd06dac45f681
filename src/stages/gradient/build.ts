import type { ComponentRecord, EvidencePointer, GradientClaim, GradientDocument } from '../../domain/gradient.ts';
import { GRADIENT_SCHEMA, pointerText } from '../../domain/gradient.ts';
import type { CaseRecord } from '../../domain/record.ts';
import { scorerDecides } from '../../domain/record.ts';
import type { Requirement } from '../../domain/requirements.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { eventMember, type BlueprintComponent } from './components.ts';

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

/** Which components acted in a trace (and at which events), and the errors each introduced. */
function attribute(trace: readonly TraceEvent[], components: readonly BlueprintComponent[]) {
  const tools = new Map(components.filter((c) => c.kind === 'tool').map((c) => [c.name, c]));
  const members = new Map(components.filter((c) => c.kind === 'member').map((c) => [c.name, c]));
  const acted = new Map<string, number[]>();
  const errors: Array<{ component: string; event: number; message: string }> = [];
  const callOwner = new Map<string, string>();
  const note = (component: string, event: number) => acted.set(component, [...(acted.get(component) ?? []), event]);
  trace.forEach((event, index) => {
    const member = eventMember(event);
    const memberComponent = member ? members.get(member) : undefined;
    if (memberComponent) note(memberComponent.id, index);
    if (event.type === 'tool_call') {
      const tool = tools.get(event.name);
      if (tool) {
        note(tool.id, index);
        callOwner.set(event.id, tool.id);
      }
    }
    if (event.type === 'tool_result' && !event.ok) {
      const owner = callOwner.get(event.id);
      // The wrapper that failed, and the member whose call it was: both records show the error.
      if (owner) errors.push({ component: owner, event: index, message: event.error ?? 'the tool failed' });
      if (memberComponent) errors.push({ component: memberComponent.id, event: index, message: event.error ?? 'a tool failed' });
    }
    if (event.type === 'error' && event.kind === 'agent' && memberComponent) errors.push({ component: memberComponent.id, event: index, message: event.message });
  });
  return { acted, errors };
}

/**
 * The gradient records of one run, from executed evidence only: trace events (which tool or
 * member acted, which tool call failed) and verdicts (the scorers', each requirement's). A
 * component fulfilled a requirement when the requirement held in a case-trial it acted in
 * without an error of its own; it introduced an error where its tool call failed (or, for a
 * member, where its own events show the error). A requirement that failed where no component
 * introduced an error is a missing sub-task, recorded on the prompt's first section (the
 * charter, where a new sub-task is added).
 */
export function buildGradient(input: {
  readonly iteration: number;
  readonly blueprint: string;
  readonly release: string;
  readonly runId: string;
  readonly components: readonly BlueprintComponent[];
  readonly trials: readonly TrialEvidence[];
}): GradientDocument {
  const records = new Map<string, ComponentRecord>(
    input.components.map((c) => [
      c.id,
      { component: c.id, kind: c.kind, path: c.path, fulfilled: [], introducedErrors: [], missing: [], evidence: { caseIds: [], pointers: [], verdicts: [] }, claims: [] },
    ]),
  );
  const charter = input.components.find((c) => c.kind === 'section');
  const missing = new Map<string, { text: string; caseIds: Set<string>; pointers: EvidencePointer[] }>();
  const addCase = (record: ComponentRecord, caseId: string) => {
    if (!record.evidence.caseIds.includes(caseId)) record.evidence.caseIds.push(caseId);
  };
  for (const trial of input.trials) {
    if (trial.record.status !== 'ok') continue;
    const { caseId, trial: n } = trial.record;
    const verdicts = verdictsOf(input.runId, trial);
    const { acted, errors } = attribute(trial.trace, input.components);
    for (const error of errors) {
      const record = records.get(error.component);
      if (!record) continue;
      const pointer: EvidencePointer = { kind: 'trace_event', runId: input.runId, caseId, trial: n, event: error.event };
      record.introducedErrors.push({ caseId, trial: n, message: error.message, pointer });
      record.evidence.pointers.push(pointer);
      addCase(record, caseId);
    }
    for (const [component, events] of acted) {
      const record = records.get(component);
      if (!record) continue;
      addCase(record, caseId);
      record.evidence.pointers.push({ kind: 'trace_event', runId: input.runId, caseId, trial: n, event: events[0] ?? 0 });
      const ownError = errors.some((e) => e.component === component);
      for (const verdict of verdicts) {
        record.evidence.verdicts.push({ caseId, trial: n, source: verdict.source, id: verdict.id, pass: verdict.pass });
        record.evidence.pointers.push(verdict.pointer);
        if (verdict.pass && !ownError && verdict.source === 'requirement' && !record.fulfilled.includes(verdict.id)) record.fulfilled.push(verdict.id);
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
