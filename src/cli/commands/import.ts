import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { importTaubenchRun } from '../../app/import-results.ts';
import { estimateTables } from '../../stages/gate/estimators.ts';
import { summarizeCases } from '../../stages/gate/flips.ts';
import { presentation } from '../open-command.ts';
import type { Io } from '../io.ts';
import { workspaceDir } from '../../app/compose.ts';
import type { ImportOptions } from './import.options.ts';

export function parseTrialList(value: string | undefined): number[] | null {
  if (value === undefined) return null;
  const trials = value.split(',').map((t) => t.trim());
  if (trials.some((t) => !/^\d+$/.test(t))) throw new AgentdevelError('USAGE', `--trials: expected trial numbers such as 0,1, got "${value}"`);
  return trials.map(Number);
}

/** `agentdevel import taubench FILE --name NAME [--trials 0,1]`: external results as a run. */
export async function importCommand(io: Io, options: ImportOptions, format: string, file: string): Promise<number> {
  if (format !== 'taubench') throw new AgentdevelError('USAGE', `import: unknown format "${format}" (supported: taubench)`);
  if (!options.name) throw new AgentdevelError('USAGE', 'import needs --name NAME for the run');
  const trials = parseTrialList(options.trials);
  const { output, redact } = presentation(io, options);
  const { runId, records } = await importTaubenchRun(
    workspaceDir(io, options),
    io.clock,
    { file: path.resolve(io.cwd, file), name: options.name, trials, version: options.version ?? null },
    redact,
  );
  const cases = [...summarizeCases(records).values()];
  const { passAt, passHat } = estimateTables(cases);
  const infraErrors = records.filter((r) => r.status === 'infra_error').length;
  const passRate = passHat['1'] ?? 0;
  if (output.json) output.result({ runId, name: options.name, records: records.length, cases: cases.length, infraErrors, passRate, passHat, passAt });
  else {
    output.line(`imported ${records.length} task-trials (${cases.length} tasks) as run "${options.name}" (${runId}): pass^1 ${passRate.toFixed(3)}`);
    if (infraErrors > 0) output.line(`  ${infraErrors} task-trial${infraErrors === 1 ? '' : 's'} ended in an agent-side error (info.error): recorded as infrastructure errors, never as fails`);
  }
  return 0;
}
