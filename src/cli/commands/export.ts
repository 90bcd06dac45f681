import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { parseTimeout } from '../../app/command-options.ts';
import { exportRunSpans } from '../../app/run-export.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import type { ExportOptions } from './export.options.ts';

/**
 * `agentdevel export --otlp URL | --otlp-file FILE [--run RUN]`: a run's case-trials as
 * OpenTelemetry spans (GenAI semantic conventions), sent to an OTLP/HTTP receiver or written
 * as OTLP/JSON. The default run is the newest one.
 */
export async function exportCommand(io: Io, options: ExportOptions): Promise<number> {
  if (!options.otlp && !options.otlpFile) throw new AgentdevelError('USAGE', 'export needs --otlp URL (an OTLP/HTTP receiver\'s /v1/traces) or --otlp-file FILE');
  if (options.otlp && !/^https?:\/\//.test(options.otlp)) throw new AgentdevelError('USAGE', `--otlp: expected an http(s) URL, got "${options.otlp}"`);
  const timeoutMs = parseTimeout(options.timeout, 30);
  const command = await openCommand(io, options, null);
  try {
    const { workspace, output } = command;
    const { store } = workspace;
    const run = options.run ? store.findRun(options.run) : store.newestRun();
    if (!run) throw new AgentdevelError('USAGE', options.run ? `--run: no run named or numbered "${options.run}" in ${workspace.root}` : `no run in ${workspace.root} yet: \`agentdevel run\` records one`);
    if (run.split !== 'train') throw new AgentdevelError('TEST_SPLIT_SEALED', `--run: ${run.id} ran the sealed test split; export reads train runs only`);
    const file = options.otlpFile ? path.resolve(io.cwd, options.otlpFile) : null;
    const exported = await exportRunSpans(workspace, run, { file, otlp: options.otlp ?? null, timeoutMs });
    const agentSpans = exported.caseTrials;
    if (output.json) output.result({ run: run.id, spans: exported.spans, caseTrials: agentSpans, sentTo: options.otlp ?? null, file, simulated: run.simulated });
    else output.line(`${run.id}: ${exported.spans} spans (${agentSpans} case-trials)${options.otlp ? ` sent to ${options.otlp}` : ''}${file ? ` written to ${file}` : ''}${run.simulated ? ' — simulated: the mock engine played the agent' : ''}`);
    return 0;
  } finally {
    await command.close();
  }
}
