// The run stage with its records collected in memory and its traces in a temp folder, for
// stage tests that look at each record.
import { silentReporter, type Reporter } from '../../src/domain/ports/reporter.ts';
import type { ModelPort } from '../../src/domain/ports/model.ts';
import type { CaseRecord } from '../../src/domain/record.ts';
import type { Runtime } from '../../src/domain/ports/runtime.ts';
import { childEnvironment } from '../../src/domain/environment.ts';
import { runScorerScript } from '../../src/adapters/process/scorer-scripts.ts';
import { runCases, type RunInput, type RunTally } from '../../src/stages/run/run.ts';
import { openRunTraces } from '../../src/stages/run/trace-file.ts';
import { tempDir } from './workspace.ts';

export interface CollectedRun extends RunTally {
  /** Records in the order they were saved. */
  readonly records: CaseRecord[];
  readonly tracesRoot: string;
}

export async function runCollected(
  input: Omit<RunInput, 'label' | 'criticPolicy' | 'scriptEnvironment'> & { readonly label?: string; readonly criticPolicy?: RunInput['criticPolicy']; readonly scriptEnvironment?: RunInput['scriptEnvironment'] },
  deps: { readonly runtime: Runtime; readonly model: ModelPort; readonly redact?: (text: string) => string; readonly reporter?: Reporter },
): Promise<CollectedRun> {
  const records: CaseRecord[] = [];
  const tracesRoot = tempDir('agentdevel-traces-');
  const traces = openRunTraces(tracesRoot, input.runId);
  const tally = await runCases(
    { label: input.runId, criticPolicy: 'all', scriptEnvironment: childEnvironment(process.env), ...input },
    {
      runtime: deps.runtime,
      model: deps.model,
      store: { saveRecords: (_run, saved) => records.push(...saved), taxonomy: () => [] },
      traces,
      scorerScripts: runScorerScript,
      reporter: deps.reporter ?? silentReporter,
      redact: deps.redact ?? ((text) => text),
    },
  );
  await traces.close();
  return { ...tally, records, tracesRoot };
}
