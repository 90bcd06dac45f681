// `agentdevel import`: external results read into a run of the workspace's store, their traces
// written beside the run's own (the tau-bench importer, given the store and the trace writer).
import type { Redactor } from '../domain/environment.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { CaseRecord } from '../domain/record.ts';
import { importTaubench, type ImportRequest } from '../adapters/importers/taubench.ts';
import { newRunId } from '../pipeline/run/execute-run.ts';
import { openStoreWorkspace } from './workspace.ts';
import { openRunTraces } from '../stages/run/trace-file.ts';

/** Imports a tau-bench results file into the workspace at `dir` as a new run (under the workspace's lock). */
export async function importTaubenchRun(dir: string, clock: Clock, request: ImportRequest, redact: Redactor): Promise<{ runId: string; records: CaseRecord[] }> {
  const workspace = await openStoreWorkspace(dir, clock, 'import');
  try {
    const runId = newRunId(clock);
    return await importTaubench(workspace.store, (id) => openRunTraces(workspace.tracesRoot, id), runId, request, redact);
  } finally {
    await workspace.close();
  }
}
