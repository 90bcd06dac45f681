// The offline heuristic critic: an implementation-blind lint over one trace, the mock engine's
// critic (and its requirements review). Like the LLM critic it sees only the rubric, the trace
// and the scorer result, and it reports a symptom (what went wrong on the surface), never a
// cause or a fix. It follows the critic's one rule:
// the scorer, when there is one, decides pass or fail, and a passing case is labelled "ok".
// Checks run in a fixed order and the first hit names the symptom; a clean trace passes
// unless the scorer failed.
import { criticRules, type CriticRules } from '../../../domain/critic-rules.ts';
import { checkReason, PASSING_LABEL, scorerDecides, type CriticRequirement, type CriticVerdict, type ScorerResult } from '../../../domain/record.ts';
import { UNEXPLAINED_FAILURE_LABEL } from '../../../domain/symptoms.ts';
import { facesUser, type TraceEvent } from '../../../domain/trace.ts';

/** Optional machine-readable rules in the rubric (a ```json critic-rules fenced block), checked when the task loads. */
export type RubricRules = CriticRules;

export function rubricRules(rubric: string): RubricRules {
  return criticRules(rubric);
}

type Finding = Omit<CriticVerdict, 'pass'>;
type Check = (trace: readonly TraceEvent[], rules: RubricRules) => Finding | null;

const AFFIRMATIVE = /^\s*(yes|yeah|yep|sure|ok|okay|please do|go ahead|confirm)/i;
const ASKS_TO_CONFIRM = /confirm|proceed|go ahead|shall i|should i|\(yes\/no\)/i;

function short(value: unknown, max = 80): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const checks: readonly Check[] = [
  function stepBudget(trace) {
    const hit = trace.find((e) => e.type === 'error' && e.kind === 'agent' && /step budget/i.test(e.message));
    return hit ? { label: 'step_budget_exhausted', description: 'The conversation ran out of steps before the request was finished.' } : null;
  },
  function agentError(trace) {
    const hit = trace.find((e) => e.type === 'error' && e.kind === 'agent');
    return hit && hit.type === 'error' ? { label: 'agent_error', description: short(hit.message, 200) } : null;
  },
  function invalidArguments(trace) {
    const calls = new Map(trace.filter((e) => e.type === 'tool_call').map((e) => [e.id, e]));
    const hit = trace.find((e) => e.type === 'tool_result' && !e.ok && /^invalid arguments/i.test(e.error ?? ''));
    if (!hit || hit.type !== 'tool_result') return null;
    const call = calls.get(hit.id);
    return { label: 'invalid_tool_arguments', description: `${call?.name ?? 'a tool'} rejected its arguments: ${short(hit.error)}` };
  },
  function toolError(trace) {
    const calls = new Map(trace.filter((e) => e.type === 'tool_call').map((e) => [e.id, e]));
    const hit = trace.find((e) => e.type === 'tool_result' && !e.ok);
    if (!hit || hit.type !== 'tool_result') return null;
    const call = calls.get(hit.id);
    const args = call?.type === 'tool_call' ? ` with ${short(call.args, 60)}` : '';
    // In a crew the member that made the call is named: the critic sees members' names, never their prompts.
    const by = call?.agent ? ` (by ${call.agent})` : '';
    return { label: 'tool_error', description: `${call?.type === 'tool_call' ? call.name : 'a tool'}${args}${by} failed: ${short(hit.error)}` };
  },
  function actedWithoutConfirmation(trace, rules) {
    for (const [index, event] of trace.entries()) {
      if (event.type !== 'tool_call' || !rules.confirmBefore.includes(event.name)) continue;
      const before = trace.slice(0, index);
      const questionAt = before.findLastIndex((e) => e.type === 'message' && e.role === 'assistant' && facesUser(e) && ASKS_TO_CONFIRM.test(e.text));
      const answer = before.slice(questionAt + 1).find((e) => e.type === 'message' && e.role === 'user');
      if (questionAt < 0 || !answer || answer.type !== 'message') {
        return { label: 'missing_required_step', description: `${event.name} was called without asking the customer to confirm first.` };
      }
      if (!AFFIRMATIVE.test(answer.text)) {
        return { label: 'acted_against_user', description: `${event.name} was called although the customer did not confirm.` };
      }
    }
    return null;
  },
  function wrongOrder(trace, rules) {
    for (const [index, event] of trace.entries()) {
      if (event.type !== 'tool_call') continue;
      const lookup = rules.lookupBefore[event.name];
      if (!lookup) continue;
      const looked = trace.slice(0, index).some((e) => e.type === 'tool_call' && e.name === lookup);
      if (!looked) return { label: 'wrong_order', description: `${event.name} was called before ${lookup}.` };
    }
    return null;
  },
  function repeatedCalls(trace, rules) {
    const counts = new Map<string, number>();
    for (const event of trace) {
      if (event.type !== 'tool_call') continue;
      const key = `${event.name} ${JSON.stringify(event.args)}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if ((counts.get(key) ?? 0) >= rules.repeatLimit) {
        return { label: 'repeated_identical_calls', description: `${event.name} was called ${rules.repeatLimit} times with the same arguments.` };
      }
    }
    return null;
  },
  function emptyFinal(trace) {
    const final = trace.findLast((e) => e.type === 'final');
    if (!final || final.type !== 'final') return { label: 'missing_final_output', description: 'The run ended without a final output.' };
    const output = final.output;
    const empty =
      output === null ||
      output === undefined ||
      (typeof output === 'string' && output.trim() === '') ||
      (typeof output === 'object' && Object.values(output as object).every((v) => v === null || v === ''));
    return empty ? { label: 'empty_final_output', description: 'The final output is empty.' } : null;
  },
];

/** Scorer codes become symptoms when the trace itself looks clean. */
function fromScorer(scorer: ScorerResult): Finding {
  const failed = scorer.checks.find((c) => !c.pass);
  const label = (failed?.code ?? UNEXPLAINED_FAILURE_LABEL).replace(/[^a-z0-9_]/g, '_');
  // The structured reason (expected against actual) says more than a generic line.
  return { label: /^[a-z]/.test(label) ? label : UNEXPLAINED_FAILURE_LABEL, description: short(failed ? checkReason(failed) : 'The outcome does not meet the rubric.', 200) };
}

const passing: CriticVerdict = { pass: true, label: PASSING_LABEL, description: 'The conversation follows the rubric.' };

/**
 * The offline critic's verdict. A requirement it judges breaks when the trace shows one of the
 * requirement's listed symptoms; the scorer, when it decides, decides the rest.
 */
export function heuristicCritic(
  rubric: string,
  trace: readonly TraceEvent[],
  scorer: ScorerResult | null,
  requirements: readonly CriticRequirement[] = [],
  /** Findings the critic talks itself out of (the mock's blueprint-aware critic); none for a blind one. */
  excused: (label: string) => boolean = () => false,
): CriticVerdict {
  const rules = rubricRules(rubric);
  const findings = checks.map((check) => check(trace, rules)).filter((f): f is Finding => f !== null && !excused(f.label));
  const judged = requirements.map((r) => {
    const hit = findings.find((f) => r.symptoms.includes(f.label));
    return { id: r.id, pass: !hit, reason: hit ? short(hit.description, 280) : 'the trace shows no sign of a violation' };
  });
  const withRequirements = (verdict: CriticVerdict): CriticVerdict => (requirements.length === 0 ? verdict : { ...verdict, requirements: judged });
  const broken = findings.find((f) => requirements.some((r) => r.symptoms.includes(f.label)));
  if (scorerDecides(scorer) && scorer.pass) return withRequirements(broken ? { pass: false, ...broken } : passing);
  const first = findings[0];
  if (first) return withRequirements({ pass: false, ...first });
  if (scorerDecides(scorer) && !scorer.pass) return withRequirements({ pass: false, ...fromScorer(scorer) });
  return withRequirements(passing);
}

/**
 * The offline requirements review (a simulation of the LLM review, for the mock engine): a
 * requirement is violated in a case when the case's trace shows one of the requirement's
 * listed symptoms.
 */
export function heuristicRequirementsReview(
  rubric: string,
  requirements: readonly CriticRequirement[],
  cases: ReadonlyArray<{ readonly caseId: string; readonly trace: readonly TraceEvent[] }>,
): Array<{ requirement: string; caseId: string; reason: string }> {
  const rules = rubricRules(rubric);
  return cases.flatMap(({ caseId, trace }) => {
    const findings = checks.map((check) => check(trace, rules)).filter((f): f is Finding => f !== null);
    return requirements.flatMap((r) => {
      const hit = findings.find((f) => r.symptoms.includes(f.label));
      return hit ? [{ requirement: r.id, caseId, reason: short(hit.description, 280) }] : [];
    });
  });
}
