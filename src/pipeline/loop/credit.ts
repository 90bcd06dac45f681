import { blueprintComponents as componentsOf, blueprintRuntimeOf, type BlueprintComponent } from '../../domain/blueprint-components.ts';
import { CREDIT_SCHEMA, type CreditDocument } from '../../domain/credit.ts';
import { MOCK_MODEL } from '../../domain/models.ts';
import type { BlueprintFile, RcHistoryEntry } from '../../domain/ports/model.ts';
import { judgeHelpfulness, rankBy, tallyCredit, type Component, type GradedTrial } from '../../stages/credit/credit.ts';
import { readTrace } from '../../stages/run/trace-file.ts';
import type { ModelPart, WorkspacePart } from '../context.ts';
import type { RunResult } from '../run/execute-run.ts';

/**
 * The components credit tallies, from the blueprint's one component model: crew members and tool
 * wrappers (with their descriptions, which the judge reads) and prompt partials (with the agents
 * whose prompts include them). A command agent's parts leave no trace of their own: it has none.
 */
export function creditComponents(files: readonly BlueprintFile[], blueprint: string): Component[] {
  const root = `blueprints/${blueprint}`;
  if (blueprintRuntimeOf(files, root) === 'command') return [];
  const credited = (c: BlueprintComponent): Component[] => {
    switch (c.kind) {
      case 'member':
      case 'tool':
        return [{ name: c.name, kind: c.kind, description: c.description }];
      case 'partial':
        return [{ name: `${c.name}.hbs`, kind: 'partial', description: 'a prompt partial', agents: c.includedBy ?? [] }];
      case 'agent':
      case 'orchestrator':
      case 'section':
        return [];
      default: {
        const exhaustive: never = c.kind;
        return exhaustive;
      }
    }
  };
  return componentsOf(files, root).flatMap(credited);
}

/**
 * The iteration's credit document: the components of the release, tallied over its run's graded
 * case-trials, with the judge's verdicts when credit.helpfulness is on (its calls go to the
 * iteration's cost ledger like every model call).
 */
export async function recordCredit(
  context: WorkspacePart & Pick<ModelPart, 'model'>,
  input: { readonly iteration: number; readonly run: RunResult; readonly files: readonly BlueprintFile[]; readonly history: readonly RcHistoryEntry[] },
): Promise<{ document: CreditDocument; helpful: ReadonlyMap<string, boolean> | null } | null> {
  const { config, store, tracesRoot } = context.workspace;
  const components = creditComponents(input.files, config.blueprint);
  if (components.length === 0) return null;
  const trials: GradedTrial[] = [];
  for (const record of store.records(input.run.runId)) {
    if (record.status !== 'ok' || record.pass === null) continue;
    const trace = await readTrace(tracesRoot, record.traceRef);
    if (trace) trials.push({ caseId: record.caseId, trial: record.trial, pass: record.pass, trace });
  }
  const last = input.history.at(-1) ?? null;
  const lastRc = last ? { iteration: last.iteration, fixed: last.fixed.map((f) => f.caseId), broken: last.broken.map((b) => b.caseId) } : null;
  const judged = config.credit.helpfulness ? await judgeHelpfulness({ components, trials, model: config.models.judge }, { model: context.model }) : null;
  const credits = tallyCredit({ components, trials, lastRc, verdicts: judged?.verdicts ?? null, policy: config.credit.freeRider });
  const document: CreditDocument = {
    schema: CREDIT_SCHEMA,
    iteration: input.iteration,
    blueprint: config.blueprint,
    runId: input.run.runId,
    lastRc,
    judge: { enabled: config.credit.helpfulness, model: config.credit.helpfulness ? config.models.judge : null, calls: judged?.requests ?? 0 },
    freeRider: { ...config.credit.freeRider },
    components: credits,
    ranking: { byHelpfulness: rankBy(credits, (c) => c.helpfulness?.rate), bySuccessRate: rankBy(credits, (c) => c.successRate) },
    simulated: input.run.simulated || (config.credit.helpfulness && config.models.judge === MOCK_MODEL),
  };
  return { document, helpful: judged?.verdicts ?? null };
}
