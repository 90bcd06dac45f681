import type { ComponentCredit, ComponentKind } from '../../domain/credit.ts';
import type { HelpfulnessRequest, HelpfulnessVerdict, ModelPort } from '../../domain/ports/model.ts';
import { ORCHESTRATOR, type TraceEvent } from '../../domain/trace.ts';

/** A component of the blueprint as credit sees it: its name, kind, description and, for a partial, the agents whose prompts include it. */
export interface Component {
  readonly name: string;
  readonly kind: ComponentKind;
  readonly description: string;
  /** Partials only: the agents ("main" for the single agent or the orchestrator, else a member's name) whose prompt includes it. */
  readonly agents?: readonly string[];
}

/** One graded case-trial of the run credit is read from. */
export interface GradedTrial {
  readonly caseId: string;
  readonly trial: number;
  readonly pass: boolean;
  readonly trace: readonly TraceEvent[];
}

/** The main agent's key: a single agent's events carry no agent, an orchestrator's carry its name. */
export const MAIN_AGENT = 'main';
const agentKey = (event: TraceEvent): string => (event.agent === undefined || event.agent === ORCHESTRATOR ? MAIN_AGENT : event.agent);

/** A call site in a trace: the tool_call id (unique in a trace) and whether it failed. */
interface CallSite {
  readonly id: string;
  readonly failed: boolean;
}

/** The call sites of a member or a tool wrapper in one trace. */
export function callSites(component: Component, trace: readonly TraceEvent[]): CallSite[] {
  if (component.kind === 'partial') return [];
  const sites: CallSite[] = [];
  for (const event of trace) {
    if (event.type !== 'tool_call' || event.name !== component.name) continue;
    const result = trace.find((e) => e.type === 'tool_result' && e.id === event.id && agentKey(e) === agentKey(event));
    sites.push({ id: event.id, failed: result?.type === 'tool_result' ? !result.ok : true });
  }
  return sites;
}

/** A partial's uses in one trace: the model turns of the agents whose prompt includes it, and their agent errors. */
function partialUses(component: Component, trace: readonly TraceEvent[]): { calls: number; errors: number } {
  const agents = new Set(component.agents ?? []);
  const mine = trace.filter((e) => agents.has(agentKey(e)));
  return { calls: mine.filter((e) => e.type === 'llm').length, errors: mine.filter((e) => e.type === 'error' && e.kind === 'agent').length };
}

/** The key of one call site across the run: case, trial and call id. */
export const siteKey = (trial: GradedTrial, callId: string): string => `${trial.caseId}#${trial.trial}:${callId}`;

export interface CreditPolicy {
  readonly minSuccessRate: number;
  readonly maxHelpfulness: number;
}

/** Fewest judged calls before a component can be called a free rider. */
const MIN_JUDGED = 3;

/**
 * Credit per component from a run's graded case-trials: a pure tally. `verdicts` maps call
 * sites (siteKey) to the judge's verdict; null when the judge was off.
 */
export function tallyCredit(input: {
  readonly components: readonly Component[];
  readonly trials: readonly GradedTrial[];
  readonly lastRc: { readonly fixed: readonly string[]; readonly broken: readonly string[] } | null;
  readonly verdicts: ReadonlyMap<string, boolean> | null;
  readonly policy: CreditPolicy;
}): ComponentCredit[] {
  const fixed = new Set(input.lastRc?.fixed ?? []);
  const broken = new Set(input.lastRc?.broken ?? []);
  return input.components.map((component) => {
    let calls = 0;
    let errors = 0;
    let callsOnPassing = 0;
    let callsOnFailing = 0;
    let caseTrials = 0;
    let passingCaseTrials = 0;
    let callsOnFixed = 0;
    let callsOnBroken = 0;
    let judged = 0;
    let helpful = 0;
    for (const trial of input.trials) {
      let here: number;
      if (component.kind === 'partial') {
        const uses = partialUses(component, trial.trace);
        here = uses.calls;
        errors += uses.errors;
      } else {
        const sites = callSites(component, trial.trace);
        here = sites.length;
        errors += sites.filter((s) => s.failed).length;
        for (const site of sites) {
          const verdict = input.verdicts?.get(siteKey(trial, site.id));
          if (verdict === undefined) continue;
          judged += 1;
          if (verdict) helpful += 1;
        }
      }
      if (here === 0) continue;
      calls += here;
      caseTrials += 1;
      if (trial.pass) {
        passingCaseTrials += 1;
        callsOnPassing += here;
      } else callsOnFailing += here;
      if (fixed.has(trial.caseId)) callsOnFixed += here;
      if (broken.has(trial.caseId)) callsOnBroken += here;
    }
    const successRate = caseTrials === 0 ? null : passingCaseTrials / caseTrials;
    const helpfulness = input.verdicts === null || component.kind === 'partial' ? null : { judged, helpful, rate: judged === 0 ? null : helpful / judged };
    const freeRider =
      successRate !== null && helpfulness?.rate != null && helpfulness.judged >= MIN_JUDGED && successRate >= input.policy.minSuccessRate && helpfulness.rate <= input.policy.maxHelpfulness;
    return { name: component.name, kind: component.kind, calls, errors, callsOnPassing, callsOnFailing, caseTrials, passingCaseTrials, successRate, callsOnFixed, callsOnBroken, helpfulness, freeRider };
  });
}

/** Component names by a figure, best first; those without the figure are left out. Ties keep the given order. */
export function rankBy(credits: readonly ComponentCredit[], figure: (c: ComponentCredit) => number | null | undefined): string[] {
  return credits
    .map((c, index) => ({ name: c.name, value: figure(c), index }))
    .filter((c): c is { name: string; value: number; index: number } => typeof c.value === 'number')
    .sort((a, b) => b.value - a.value || a.index - b.index)
    .map((c) => c.name);
}

/**
 * Asks the judge about every call site of every member and tool wrapper: one request per
 * component per case-trial it was called in. Returns the verdicts by siteKey and the number of
 * requests made.
 */
export async function judgeHelpfulness(
  input: { readonly components: readonly Component[]; readonly trials: readonly GradedTrial[]; readonly model: string },
  deps: { readonly model: Pick<ModelPort, 'judgeHelpfulness'> },
): Promise<{ verdicts: Map<string, boolean>; requests: number }> {
  const verdicts = new Map<string, boolean>();
  let requests = 0;
  for (const trial of input.trials) {
    for (const component of input.components) {
      if (component.kind === 'partial') continue;
      const sites = callSites(component, trial.trace);
      if (sites.length === 0) continue;
      const request: HelpfulnessRequest = {
        model: input.model,
        component: { name: component.name, kind: component.kind, description: component.description },
        trace: trial.trace,
        callIds: sites.map((s) => s.id),
      };
      requests += 1;
      const answer: readonly HelpfulnessVerdict[] = (await deps.model.judgeHelpfulness(request)).value.verdicts;
      for (const verdict of answer) verdicts.set(siteKey(trial, verdict.callId), verdict.helpful);
    }
  }
  return { verdicts, requests };
}
