import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import type { CaseRecord } from '../../domain/record.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { otlpJson, runSpans, sendOtlp } from '../../adapters/export/otel-spans.ts';
import { releaseTags } from '../../pipeline/workspace/line-history.ts';
import { readTrace, TraceDamaged } from '../../stages/run/trace-file.ts';
import { openCommand, type CommonOptions, type Io } from '../../app/compose.ts';

export interface ExportOptions extends CommonOptions {
  readonly run?: string;
  readonly otlp?: string;
  readonly otlpFile?: string;
}

/**
 * `agentdevel export --otlp URL | --otlp-file FILE [--run RUN]`: a run's case-trials as
 * OpenTelemetry spans (GenAI semantic conventions), sent to an OTLP/HTTP receiver or written
 * as OTLP/JSON. The default run is the newest one.
 */
export async function exportCommand(io: Io, options: ExportOptions): Promise<number> {
  if (!options.otlp && !options.otlpFile) throw new AgentdevelError('USAGE', 'export needs --otlp URL (an OTLP/HTTP receiver\'s /v1/traces) or --otlp-file FILE');
  if (options.otlp && !/^https?:\/\//.test(options.otlp)) throw new AgentdevelError('USAGE', `--otlp: expected an http(s) URL, got "${options.otlp}"`);
  const command = await openCommand(io, options, null);
  try {
    const { workspace, output } = command;
    const { store, repo, config } = workspace;
    const run = options.run ? store.findRun(options.run) : store.newestRun();
    if (!run) throw new AgentdevelError('USAGE', options.run ? `--run: no run named or numbered "${options.run}" in ${workspace.root}` : `no run in ${workspace.root} yet: \`agentdevel run\` records one`);
    if (run.split !== 'train') throw new AgentdevelError('TEST_SPLIT_SEALED', `--run: ${run.id} ran the sealed test split; export reads train runs only`);
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
    let file: string | null = null;
    if (options.otlpFile) {
      file = path.resolve(io.cwd, options.otlpFile);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, otlpJson(spans));
    }
    if (options.otlp) {
      await sendOtlp(options.otlp, spans).catch((error: unknown) => {
        throw new AgentdevelError('INFRA', `--otlp: ${options.otlp} did not take the spans: ${(error as Error).message}`, { cause: error, hint: 'Check that an OTLP/HTTP receiver listens at that URL (its /v1/traces path).' });
      });
    }
    const agentSpans = trials.length;
    if (output.json) output.result({ run: run.id, spans: spans.length, caseTrials: agentSpans, sentTo: options.otlp ?? null, file, simulated: run.simulated });
    else output.line(`${run.id}: ${spans.length} spans (${agentSpans} case-trials)${options.otlp ? ` sent to ${options.otlp}` : ''}${file ? ` written to ${file}` : ''}${run.simulated ? ' — simulated: the mock engine played the agent' : ''}`);
    return 0;
  } finally {
    await command.close();
  }
}
