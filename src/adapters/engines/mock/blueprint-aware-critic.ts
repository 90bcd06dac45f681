// The simulated critic of the `critic-sees-blueprint` ablation. It is not a language model. It
// models one way a judge that reads the implementation goes wrong (the paper's "entanglement
// between evaluation and implementation"): it takes the blueprint's word for it. When the
// blueprint says it handles a failure mode (the prompt tells the agent to confirm, a wrapper
// normalizes ids, a search tool exists), the critic stops flagging that symptom in the trace,
// whether or not the agent actually behaved that way. A blind critic (every other setting)
// sees only the rubric and the trace and flags what the trace shows.
import { blueprintShown } from '../../../domain/blueprint-shown.ts';

/** Which symptom the blueprint claims to handle, by what it says (the orders example's vocabulary). */
const CLAIMS: ReadonlyArray<{ readonly labels: readonly string[]; readonly claim: RegExp }> = [
  { labels: ['missing_required_step', 'acted_against_user'], claim: /confirm/i },
  { labels: ['tool_error', 'invalid_tool_arguments'], claim: /normali[sz]e/i },
  { labels: ['step_budget_exhausted', 'repeated_identical_calls'], claim: /find_orders_by_item/ },
  { labels: ['wrong_order'], claim: /with get_order first|look (it|the order) up first/i },
];

/** The findings a blueprint-aware critic excuses for this rubric; none when the rubric shows no blueprint. */
export function blueprintAwareExcuses(rubric: string): (label: string) => boolean {
  const shown = blueprintShown(rubric);
  if (shown === null) return () => false;
  const excused = new Set(CLAIMS.filter((c) => c.claim.test(shown)).flatMap((c) => c.labels));
  return (label) => excused.has(label);
}
