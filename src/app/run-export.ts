// `agentdevel export`: a recorded run's case-trials as OpenTelemetry spans. Gathers what the
// spans carry (the records and their traces, the release the run's commit is, the flips a gate
// read from it) and hands it to the OpenTelemetry adapter, which writes OTLP/JSON or sends it.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../domain/errors.ts';
import type { CaseRecord } from '../domain/record.ts';
import type { TraceEvent } from '../domain/trace.ts';
import { OtlpDeadline, otlpJson, runSpans, sendOtlp } from '../adapters/export/otel-spans.ts';
import { releaseTags } from '../pipeline/workspace/line-history.ts';
import type { Workspace } from '../pipeline/workspace/workspace.ts';
import { readTrace, TraceDamaged } from '../stages/run/trace-file.ts';

type RecordedRun = NonNullable<ReturnType<Workspace['store']['newestRun']>>;

export interface ExportTarget {
  /** Write OTLP/JSON to this file (absolute). */
  readonly file: string | null;
  /** Send to this OTLP/HTTP receiver (its /v1/traces). */
  readonly otlp: string | null;
  /** The bound of sending to the receiver, its answer included. */
  readonly timeoutMs: number;
}

/** Exports the run's spans to the target; returns how many spans and case-trials. */
export async function exportRunSpans(workspace: Workspace, run: RecordedRun, target: ExportTarget): Promise<{ spans: number; caseTrials: number }> {
  const { store, repo, config } = workspace;
  let release: string | null = null;
  for (const { tag } of await releaseTags(repo, config)) {
    const at = await repo.resolve(`${tag}^{commit}`);
    if (at && (at === run.commit || (await repo.resolve(`${tag}^{commit}^`)) === run.commit)) release = tag;
  }
  // The flip class of each case a gate named, when a gate read this run as its candidate.
  const flips = new Map<string, string>();
  for (const decision of store.decisions(run.blueprint)) {
    if (decision.candidateRun !== run.id) continue;
    for (const id of decision.p2f) flips.set(id, 'regression');
    for (const id of decision.f2p) flips.set(id, 'fix');
  }
  const trials: Array<{ record: CaseRecord; trace: TraceEvent[] | null }> = [];
  for (const record of store.records(run.id)) {
    const trace = await readTrace(workspace.tracesRoot, record.traceRef).catch((error: unknown) => {
      if (error instanceof TraceDamaged) return null;
      throw error;
    });
    trials.push({ record, trace });
  }
  const spans = await runSpans({ runId: run.id, blueprint: run.blueprint, commit: run.commit, purpose: run.purpose, startedAt: run.startedAt, simulated: run.simulated, agentModel: run.agentModel, release, flips, trials });
  if (target.file) {
    await mkdir(path.dirname(target.file), { recursive: true });
    await writeFile(target.file, otlpJson(spans));
  }
  const { otlp } = target;
  if (otlp) {
    await sendOtlp(otlp, spans, target.timeoutMs).catch((error: unknown) => {
      if (error instanceof OtlpDeadline) {
        throw new AgentdevelError('INFRA', `--otlp: the receiver at ${otlp} did not take the spans and answer in full within ${Number((error.timeoutMs / 1000).toFixed(1))} s (the bound of --timeout)`, {
          cause: error,
          hint: 'Check the OTLP/HTTP receiver at that URL (a proxy or receiver that holds its answer open), or allow longer with --timeout SECONDS.',
        });
      }
      throw new AgentdevelError('INFRA', `--otlp: ${otlp} did not take the spans: ${(error as Error).message}`, { cause: error, hint: 'Check that an OTLP/HTTP receiver listens at that URL (its /v1/traces path).' });
    });
  }
  return { spans: spans.length, caseTrials: trials.length };
}
