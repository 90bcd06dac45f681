// What the gate's other layers need from the world: the must-pass entries checked against the
// train cases, and the trace costs read from the runs' traces (the blueprint's own checks run
// through the BlueprintCheckRunner port, adapters/process/blueprint-checks.ts). The decision
// itself is pure (src/stages/gate/decide.ts).
import { CONFIG_FILE } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';
import type { Case } from '../../domain/case.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { CaseRecord } from '../../domain/record.ts';
import { readTrace } from '../../stages/run/trace-file.ts';
import { traceCost, type CostWeights } from '../../stages/score/trace-cost.ts';
import type { RunCosts } from '../../stages/gate/decide.ts';
import { resolveMustPass } from '../../stages/gate/layers.ts';

/**
 * Refuses a `mustPass` entry that names no train case (a typo there would protect nothing): one
 * CONFIG_INVALID naming the key, as for any other config error.
 */
export function refuseUnknownMustPass(config: Config, cases: readonly Case[]): void {
  config.gate.layers.forEach((layer, index) => {
    if (layer.layer !== 'checks') return;
    for (const [at, entry] of layer.mustPass.entries()) {
      if (resolveMustPass([entry], cases).unknown.length === 0) continue;
      const key = `gate.layers[${index}].mustPass[${at}]`;
      const what = entry.startsWith('tag:') ? `no train case has the tag "${entry.slice(4)}"` : `no train case has the id "${entry}"`;
      throw new AgentdevelError('CONFIG_INVALID', `${CONFIG_FILE}: ${key}: ${what} (rubrics/${config.task}/train.jsonl); a must-pass entry that names nothing protects nothing`, {
        hint: 'Name a case id of the train split, or "tag:NAME" for the cases whose "tags" list NAME.',
        location: { file: CONFIG_FILE, key },
      });
    }
  });
}

/** The trace cost of a run's graded case-trials, read from their traces. */
export async function runCosts(records: readonly CaseRecord[], tracesRoot: string, weights: CostWeights): Promise<RunCosts> {
  const byCase = new Map<string, number[]>();
  for (const record of records) {
    if (record.status !== 'ok') continue;
    const trace = await readTrace(tracesRoot, record.traceRef);
    const cost = traceCost(trace ?? [], weights).cost;
    byCase.set(record.caseId, [...(byCase.get(record.caseId) ?? []), cost]);
  }
  const all = [...byCase.values()].flat();
  const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  return { mean: mean(all), perCase: new Map([...byCase].map(([id, costs]) => [id, mean(costs)])) };
}
