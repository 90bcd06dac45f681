// The layered gate (AutoEvolve §4.1.3): deterministic checks veto and no model output can
// override them; the statistical gate on flips decides; a requirements critic may only veto;
// a person may hold the release for approval. Pure: the layers' findings in, one decision out.
import type { FlipsDecision, GateCheck, GateDecision, GateVerdict, LayerVerdict } from '../../domain/decision.ts';
import type { BlueprintCheckOutcome } from '../../domain/ports/checks.ts';
import type { Case } from '../../domain/case.ts';
import { trialReason, type CaseRecord } from '../../domain/record.ts';
import { pct, plural } from './face-value-gate.ts';

/** A decision with the statistical layer alone (compare, calibrate, or a gate with no other layer). */
export function flipsOnly(flips: FlipsDecision): GateDecision {
  return {
    ...flips,
    layers: [{ layer: 'flips', verdict: flips.verdict, checks: flips.checks, violations: [] }],
    cost: null,
    composite: null,
    efficiency: null,
    requirements: null,
  };
}

export type { BlueprintCheckOutcome };

/** Must-pass entries are case ids or "tag:NAME"; returns the cases they name and the entries that name none. */
export function resolveMustPass(entries: readonly string[], cases: readonly Case[]): { cases: string[]; unknown: string[] } {
  const named = new Set<string>();
  const unknown: string[] = [];
  for (const entry of entries) {
    const tag = entry.startsWith('tag:') ? entry.slice(4) : null;
    const hits = cases.filter((c) => (tag === null ? c.id === entry : Array.isArray(c.tags) && c.tags.includes(tag)));
    if (hits.length === 0) unknown.push(entry);
    for (const hit of hits) named.add(hit.id);
  }
  return { cases: [...named].sort(), unknown };
}

export interface ChecksFindings {
  /** The must-pass cases (resolved from ids and tags) and the candidate's trials of them. */
  readonly mustPass: { readonly cases: readonly string[]; readonly candidate: readonly CaseRecord[] } | null;
  readonly blueprintChecks: readonly BlueprintCheckOutcome[];
  /** The candidate's mean trace cost per case-trial against its limit. */
  readonly traceCost: { readonly limit: number; readonly candidate: number } | null;
}

/** The deterministic layer: a veto when any check fails. */
export function checksLayer(findings: ChecksFindings): LayerVerdict {
  const checks: GateCheck[] = [];
  if (findings.mustPass) {
    const watched = new Set(findings.mustPass.cases);
    // Each failed case with the reason of its first failing trial: expected against actual.
    const firstFailure = new Map<string, CaseRecord>();
    for (const record of [...findings.mustPass.candidate].sort((a, b) => a.trial - b.trial)) {
      if (watched.has(record.caseId) && record.pass === false && !firstFailure.has(record.caseId)) firstFailure.set(record.caseId, record);
    }
    const failed = [...firstFailure.keys()].sort();
    const shown = failed.slice(0, 10).map((id) => `${id} (${trialReason(firstFailure.get(id) as CaseRecord)})`);
    checks.push({
      name: 'must_pass',
      ok: failed.length === 0,
      message:
        failed.length === 0
          ? `all ${plural(watched.size, 'must-pass case')} passed every trial`
          : `${plural(failed.length, 'must-pass case')} failed in the candidate: ${shown.join('; ')}${failed.length > 10 ? '; …' : ''}`,
      ...(failed.length > 0 ? { cases: failed } : {}),
    });
  }
  for (const check of findings.blueprintChecks) {
    checks.push({ name: 'blueprint_check', ok: check.ok, message: `blueprint check "${check.name}" ${check.ok ? 'passed' : `failed: ${check.detail}`}` });
  }
  if (findings.traceCost) {
    const { limit, candidate } = findings.traceCost;
    checks.push({ name: 'trace_cost', ok: candidate <= limit + 1e-12, message: `mean trace cost ${candidate.toFixed(3)} per case-trial (at most ${limit})` });
  }
  return { layer: 'checks', verdict: checks.every((c) => c.ok) ? 'pass' : 'veto', checks, violations: [] };
}

export interface Violation {
  readonly requirement: string;
  readonly caseId: string;
  readonly reason: string;
}

/** The requirements layer: the critic's violations, and the requirement-violation rate against its limit. */
export function requirementsLayer(input: {
  readonly violations: readonly Violation[];
  readonly violationRate: { readonly rate: number; readonly limit: number | null } | null;
}): LayerVerdict {
  const checks: GateCheck[] = [
    {
      name: 'requirements',
      ok: input.violations.length === 0,
      message:
        input.violations.length === 0
          ? 'no requirement violated in the changed cases'
          : `${plural(input.violations.length, 'requirement violation')}: ${input.violations
              .slice(0, 5)
              .map((v) => `${v.requirement} in ${v.caseId} (${v.reason})`)
              .join('; ')}${input.violations.length > 5 ? '; …' : ''}`,
    },
  ];
  if (input.violationRate && input.violationRate.limit !== null) {
    const { rate, limit } = input.violationRate;
    checks.push({ name: 'violation_rate', ok: rate <= limit + 1e-12, message: `requirement-violation rate ${pct(rate)} (at most ${pct(limit)})` });
  }
  return { layer: 'requirements', verdict: checks.every((c) => c.ok) ? 'pass' : 'veto', checks, violations: [...input.violations] };
}

/** A layer that did not run because an earlier one already decided (a veto costs no more work). */
export function notRun(layer: LayerVerdict['layer'], why: string): LayerVerdict {
  return { layer, verdict: 'not_run', checks: [{ name: layer === 'approval' ? 'approval' : 'requirements', ok: true, message: why }], violations: [] };
}

/**
 * The decision of all layers together. A veto of the checks or the requirements layer rejects
 * whatever the flips said; the requirements layer is never asked to approve, so it cannot
 * turn a reject into an accept. An accepted RC under the approval layer is pending.
 */
export function composeLayers(decision: GateDecision, layers: { readonly checks?: LayerVerdict; readonly requirements?: LayerVerdict; readonly approval?: boolean }): GateDecision {
  const flipsLayer = decision.layers.find((l) => l.layer === 'flips') ?? flipsOnly(decision).layers[0];
  const ordered: LayerVerdict[] = [];
  if (layers.checks) ordered.push(layers.checks);
  ordered.push(flipsLayer as LayerVerdict);
  if (layers.requirements) ordered.push(layers.requirements);
  const vetoed = ordered.filter((l) => l.verdict === 'veto');
  const flipsVerdict = (flipsLayer as LayerVerdict).verdict;
  let verdict: GateVerdict;
  if (flipsVerdict === 'undecided' && vetoed.length === 0) verdict = 'undecided';
  else if (vetoed.length > 0 || flipsVerdict === 'reject' || flipsVerdict === 'not_run') verdict = 'reject';
  else verdict = 'accept';
  if (layers.approval) {
    ordered.push(
      verdict === 'accept'
        ? { layer: 'approval', verdict: 'pending', checks: [{ name: 'approval', ok: true, message: 'accepted by the gate: held as a pending release until a person approves or declines it' }], violations: [] }
        : notRun('approval', 'not asked: the gate rejected the candidate'),
    );
  }
  const vetoReasons = vetoed.flatMap((l) => l.checks.filter((c) => !c.ok).map((c) => `${l.layer} layer: ${c.message}`));
  const reasons = verdict === 'accept' ? decision.reasons : [...vetoReasons, ...(flipsVerdict === 'accept' ? [] : decision.reasons)];
  return { ...decision, verdict, reasons, layers: ordered };
}
