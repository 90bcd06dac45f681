import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { blueprintRoot, listFiles, readManifest, toolFilesOf } from '../../adapters/blueprint/load.ts';
import type { BlueprintManifest } from '../../domain/blueprint-manifest.ts';
import { CREDIT_SCHEMA, type CreditDocument } from '../../domain/credit.ts';
import { MOCK_MODEL } from '../../domain/models.ts';
import type { RcHistoryEntry } from '../../domain/ports/model.ts';
import { judgeHelpfulness, MAIN_AGENT, rankBy, tallyCredit, type Component, type GradedTrial } from '../../stages/credit/credit.ts';
import { readTrace } from '../../stages/run/trace-file.ts';
import type { RunContext, RunResult } from '../run/execute-run.ts';

/** A string property written out in a wrapper module (`name: '…'`), read without running the module. */
export function writtenProperty(source: string, key: string): string | null {
  return new RegExp(`\\b${key}:\\s*(['"\`])((?:\\\\.|(?!\\1).)*)\\1`).exec(source)?.[2] ?? null;
}

/** The partials a template names (`{{> name}}`), written out. */
const partialsNamed = (source: string): string[] => [...source.matchAll(/\{\{~?#?>\s*([\w./-]+)/g)].map((m) => m[1] as string);

/**
 * The blueprint's components, read from a checkout: crew members (name and description), tool
 * wrappers (the name and description their module writes out) and prompt partials (with the
 * agents whose prompts include them, directly or through another partial).
 */
export async function blueprintComponents(dir: string, blueprint: string, manifest: BlueprintManifest): Promise<Component[]> {
  if (manifest.runtime === 'command') return [];
  const root = blueprintRoot(dir, blueprint);
  const components: Component[] = [];
  if (manifest.runtime === 'crew') for (const m of manifest.members) components.push({ name: m.name, kind: 'member', description: m.description });
  for (const file of toolFilesOf(manifest)) {
    const source = await readFile(path.join(root, file), 'utf8');
    const name = writtenProperty(source, 'name') ?? path.basename(file).replace(/\.[^.]*$/, '');
    components.push({ name, kind: 'tool', description: writtenProperty(source, 'description') ?? '' });
  }
  const templates = new Map<string, string>();
  for (const file of (await listFiles(root)).filter((f) => f.endsWith('.hbs'))) templates.set(file.replace(/\.hbs$/, ''), await readFile(path.join(root, file), 'utf8'));
  const prompts: Array<[string, string]> =
    manifest.runtime === 'tool-loop' ? [[MAIN_AGENT, manifest.prompt]] : [[MAIN_AGENT, manifest.orchestrator.prompt], ...manifest.members.map((m): [string, string] => [m.name, m.prompt])];
  const mains = new Set(prompts.map(([, file]) => file.replace(/\.hbs$/, '')));
  const users = new Map<string, Set<string>>();
  for (const [agent, file] of prompts) {
    const seen = new Set<string>();
    const queue = partialsNamed(templates.get(file.replace(/\.hbs$/, '')) ?? '');
    while (queue.length > 0) {
      const partial = queue.shift() as string;
      if (seen.has(partial) || !templates.has(partial)) continue;
      seen.add(partial);
      users.set(partial, (users.get(partial) ?? new Set()).add(agent));
      queue.push(...partialsNamed(templates.get(partial) ?? ''));
    }
  }
  for (const name of templates.keys()) {
    if (mains.has(name)) continue;
    components.push({ name: `${name}.hbs`, kind: 'partial', description: 'a prompt partial', agents: [...(users.get(name) ?? [])] });
  }
  return components;
}

/**
 * The iteration's credit document: the components of the release, tallied over its run's graded
 * case-trials, with the judge's verdicts when credit.helpfulness is on (its calls go to the
 * iteration's cost ledger like every model call).
 */
export async function recordCredit(
  context: RunContext,
  input: { readonly iteration: number; readonly run: RunResult; readonly sourceDir: string; readonly history: readonly RcHistoryEntry[] },
): Promise<CreditDocument | null> {
  const { config, store, tracesRoot } = context.workspace;
  const manifest = await readManifest(input.sourceDir, blueprintRoot(input.sourceDir, config.blueprint));
  const components = await blueprintComponents(input.sourceDir, config.blueprint, manifest);
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
  return {
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
}
