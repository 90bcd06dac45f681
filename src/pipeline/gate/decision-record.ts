// What a decision writes to git beside decision.json so that a clone can rebuild its store:
// the runs the gate used (per case-trial verdicts, see domain/run-summary-document) and the
// taxonomy as it stood. Read from the store and traces/ at the edge; the artifacts stay pure.
import { RUNS_SCHEMA, type RecordedRun, type RunsDocument } from '../../domain/run-summary-document.ts';
import { TAXONOMY_SCHEMA, type TaxonomyDocument } from '../../domain/taxonomy-document.ts';
import { readTrace } from '../../stages/run/trace-file.ts';
import type { Workspace } from '../workspace/workspace.ts';

export interface RecordedRunRequest {
  readonly runId: string;
  /** Keep its traces: a later diagnosis (or replay) reads this run's records with their traces. */
  readonly traces: boolean;
}

/** The runs named, in order, each once; runs the store does not hold (not run) are left out. */
export async function recordedRuns(workspace: Pick<Workspace, 'store' | 'tracesRoot'>, requests: readonly RecordedRunRequest[]): Promise<RunsDocument> {
  const runs: RecordedRun[] = [];
  const seen = new Set<string>();
  for (const request of requests) {
    if (seen.has(request.runId)) continue;
    seen.add(request.runId);
    const run = workspace.store.run(request.runId);
    if (!run || run.status === 'running' || run.split !== 'train' || run.purpose === 'test') continue;
    const records: RecordedRun['records'] = [];
    // As the critic gave them: git keeps history, and aliases are read over it.
    for (const record of workspace.store.eachRecord(run.id, { asRecorded: true })) {
      const trace = request.traces ? await readTrace(workspace.tracesRoot, record.traceRef) : null;
      records.push({
        caseId: record.caseId,
        trial: record.trial,
        status: record.status,
        output: record.output,
        scorer: record.scorer,
        critic: record.critic,
        pass: record.pass,
        error: record.error,
        agentError: record.agentError ?? null,
        trace: trace ? trace.map((event) => JSON.stringify(event)) : null,
        verdictKey: record.critic ? (record.verdictKey ?? null) : null,
      });
    }
    runs.push({
      runId: run.id,
      purpose: run.purpose,
      status: run.status,
      cacheKey: run.cacheKey,
      blueprint: run.blueprint,
      commit: run.commit,
      blueprintTree: run.blueprintTree,
      taskTree: run.taskTree,
      split: 'train',
      trials: run.trials,
      agentModel: run.agentModel,
      criticModel: run.criticModel,
      simulated: run.simulated,
      keyParts: run.keyParts,
      records,
    });
  }
  return { schema: RUNS_SCHEMA, runs };
}

export function taxonomyDocument(store: Workspace['store']): TaxonomyDocument {
  return { schema: TAXONOMY_SCHEMA, labels: store.recordedTaxonomy() };
}
