// JUnit XML for CI. What CI shows red must mean what the gate means: after a gate, only a
// confirmed regression or a veto is a <failure>; a case that was already failing before the
// change, or that moved within noise, is <skipped> with a message saying which; a case whose
// trials all ended without a verdict (infrastructure) is an <error>, while one that passed every
// trial that got a verdict passes (its ungraded trials named in system-out), since the agent did
// nothing wrong there and a red check would send a reviewer after nothing. The gate's verdict and reasons go in the
// suite's properties. On an accepted gate nothing is red: a regression the policy tolerates and
// an infrastructure error within the allowed ungraded share are <skipped> too. A rejection that
// no case explains (too few fixes, a blueprint check) is the one failing testcase "gate", so a
// passing gate never gives a red check and a failing one never gives a green one. Without a gate (`run --junit`), a failing case is a failure.
import type { CaseSummary } from '../../domain/case-summary.ts';
import type { GateDecision } from '../../domain/decision.ts';
import type { CaseRecord } from '../../domain/record.ts';
import { failingCases, type CaseReason } from './case-reasons.ts';
import { distinctNames, xml } from './escape/xml.ts';
import type { DecisionHeadline } from './headline.ts';

export interface JunitGate {
  readonly candidate: string;
  readonly decision: GateDecision;
  readonly headline: DecisionHeadline;
  /** The baseline's cases, to tell a case that was already failing from one the candidate broke. */
  readonly baselineCases: ReadonlyMap<string, Pick<CaseSummary, 'passes' | 'graded'>>;
  readonly simulated: boolean;
}

export interface JunitInput {
  readonly suite: string;
  readonly records: Iterable<CaseRecord>;
  /** The gate's decision on these records (the candidate's run); absent for a plain run. */
  readonly gate?: JunitGate;
}

type Verdict =
  | { readonly kind: 'pass'; readonly note: string | null }
  | { readonly kind: 'failure' | 'skipped' | 'error'; readonly type: string; readonly message: string; readonly detail: string };

const counts = (c: CaseReason): string => `${c.passes}/${c.graded} trials passed${c.infraErrors ? `, ${c.infraErrors} without a verdict (infrastructure errors)` : ''}`;

/** What one case is in CI's terms, after a gate or after a plain run. */
function caseVerdict(id: string, bad: CaseReason | undefined, gate: JunitGate | undefined, mustPassFailed: ReadonlySet<string>): Verdict {
  const decision = gate?.decision;
  const fixed = decision?.f2p.includes(id) ? 'fixed (fail → pass, confirmed)' : null;
  if (!bad) return { kind: 'pass', note: fixed ?? (decision?.flaky.includes(id) ? 'moved within noise (not counted)' : null) };
  const detail = `${counts(bad)}\n${bad.reason}`;
  const accepted = decision?.verdict === 'accept';
  if (bad.graded > 0 && bad.graded === bad.passes) {
    // Every trial with a verdict passed; the others had none: a pass, with the gap said.
    const ungraded = `${bad.infraErrors} of ${bad.graded + bad.infraErrors} trials without a verdict (infrastructure), every other trial passed: ${bad.reason}`;
    return { kind: 'pass', note: fixed ? `${fixed}\n${ungraded}` : ungraded };
  }
  if (bad.graded === 0) {
    // A passing gate allowed this share of ungraded trials: it must not turn the check red.
    if (accepted) return { kind: 'skipped', type: 'infra_error', message: `no verdict (infrastructure), within the ungraded share the gate allows: ${bad.reason}`, detail };
    return { kind: 'error', type: 'infra_error', message: `no verdict (infrastructure): ${bad.reason}`, detail };
  }
  if (!gate || !decision) return { kind: 'failure', type: 'fail', message: bad.reason, detail };
  if (accepted && decision.p2f.includes(id)) {
    return { kind: 'skipped', type: 'tolerated_regression', message: `regression (pass → fail, confirmed), tolerated by the gate's policy: ${bad.reason}`, detail };
  }
  if (mustPassFailed.has(id)) return { kind: 'failure', type: 'veto', message: `checks layer: must-pass case failed: ${bad.reason}`, detail };
  if (decision.p2f.includes(id)) return { kind: 'failure', type: 'regression', message: `flips layer: regression (pass → fail, confirmed): ${bad.reason}`, detail };
  const before = gate.baselineCases.get(id);
  if (decision.flaky.includes(id)) return { kind: 'skipped', type: 'noise', message: `moved within noise, not a confirmed regression: ${bad.reason}`, detail };
  if (before && before.graded > before.passes) {
    return { kind: 'skipped', type: 'already_failing', message: `already failing before this change (baseline ${before.passes}/${before.graded}): ${bad.reason}`, detail };
  }
  return { kind: 'skipped', type: 'noise', message: `failed ${bad.graded - bad.passes} of ${bad.graded} trials, within noise (not selected as a regression): ${bad.reason}`, detail };
}

function testcase(name: string, classname: string, verdict: Verdict, properties: ReadonlyArray<[string, string]> = []): string {
  const head = `    <testcase name="${xml(name)}" classname="${xml(classname)}"`;
  const props = properties.length ? `\n      <properties>${properties.map(([k, v]) => `\n        <property name="${xml(k)}" value="${xml(v)}"/>`).join('')}\n      </properties>` : '';
  if (verdict.kind === 'pass') {
    const out = verdict.note ? `\n      <system-out>${xml(verdict.note)}</system-out>` : '';
    return props || out ? `${head}>${props}${out}\n    </testcase>` : `${head}/>`;
  }
  return `${head}>${props}\n      <${verdict.kind} message="${xml(verdict.message)}" type="${xml(verdict.type)}">${xml(verdict.detail)}</${verdict.kind}>\n    </testcase>`;
}

/** One testcase per case (and, after a gate, one for the gate's verdict); see the header for what each element means. */
export function renderJunit(input: JunitInput): string {
  const ids = new Set<string>();
  const seen = function* (records: Iterable<CaseRecord>) {
    for (const record of records) {
      ids.add(record.caseId);
      yield record;
    }
  };
  const bad = new Map(failingCases(seen(input.records)).map((c) => [c.caseId, c]));
  const { gate } = input;
  const mustPassFailed = new Set(gate?.decision.layers.flatMap((l) => l.checks.filter((c) => c.name === 'must_pass' && !c.ok).flatMap((c) => c.cases ?? [])) ?? []);
  const sorted = [...ids].sort();
  const names = distinctNames(sorted);
  const tally = { failure: 0, error: 0, skipped: 0 };
  const cases = sorted.map((id, i) => {
    const verdict = caseVerdict(id, bad.get(id), gate, mustPassFailed);
    if (verdict.kind !== 'pass') tally[verdict.kind] += 1;
    return testcase(names[i] as string, input.suite, verdict);
  });
  const properties: Array<[string, string]> = [];
  if (gate) {
    // The gate itself: a failure only when it rejected and no case above says why.
    const explained = tally.failure > 0;
    const verdict: Verdict =
      gate.headline.failed && !explained
        ? { kind: 'failure', type: 'gate', message: gate.headline.reasons[0] ?? 'rejected', detail: gate.headline.reasons.join('\n') }
        : { kind: 'pass', note: `${gate.headline.outcome}\n${gate.headline.reasons.join('\n')}` };
    if (verdict.kind === 'failure') tally.failure += 1;
    cases.push(testcase('gate', `${input.suite}.gate`, verdict));
    properties.push(['agentdevel.candidate', gate.candidate], ['agentdevel.outcome', gate.headline.outcome], ['agentdevel.verdict', gate.decision.verdict]);
    gate.headline.reasons.forEach((reason, i) => properties.push([`agentdevel.reason.${i + 1}`, reason]));
    if (gate.simulated) properties.push(['agentdevel.simulated', 'the mock engine played the agent: these results say nothing about a real model']);
  }
  const total = cases.length;
  const attrs = `tests="${total}" failures="${tally.failure}" errors="${tally.error}" skipped="${tally.skipped}"`;
  const props = properties.length ? `\n    <properties>${properties.map(([k, v]) => `\n      <property name="${xml(k)}" value="${xml(v)}"/>`).join('')}\n    </properties>` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="agentdevel" ${attrs}>
  <testsuite name="${xml(input.suite)}" ${attrs}>${props}
${cases.join('\n')}
  </testsuite>
</testsuites>
`;
}
