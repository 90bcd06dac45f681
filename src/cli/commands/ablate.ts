import { ablate } from '../../pipeline/loop/ablate.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import { simulationNote } from './notes.ts';
import type { AblateOptions } from './ablate.options.ts';

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const points = (x: number): string => (x === 0 ? '—' : `${x > 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`);

/**
 * `ablate --without MEMBER [--without …]`: the release's crew with each named member removed
 * (and, given several, all of them at once), on the train split. It prints CodeCrew's table and
 * the flips against the full crew. It never promotes anything.
 */
export async function ablateCommand(io: Io, options: AblateOptions): Promise<number> {
  const without = [...new Set(options.without ?? [])];
  if (without.length === 0) throw new AgentdevelError('USAGE', 'ablate needs at least one --without MEMBER');
  const settings = [...without.map((name) => [name]), ...(without.length > 1 ? [without] : [])];
  const command = await openCommand(io, options, 'ablate');
  try {
    const outcome = await ablate(command.pipelineContext, settings);
    if (command.output.json) {
      command.output.result({ ...outcome, promoted: false });
      return 0;
    }
    const width = Math.max(...outcome.rows.map((r) => r.setting.length), 'setting'.length);
    command.output.line(`ablation of ${outcome.release} on the train split (nothing is promoted)`);
    command.output.line(`${'setting'.padEnd(width)}  pass rate  change (points)`);
    for (const row of outcome.rows) command.output.line(`${row.setting.padEnd(width)}  ${pct(row.passRate).padStart(9)}  ${points(row.change).padStart(15)}`);
    for (const row of outcome.rows.slice(1)) {
      command.output.line(`${row.setting}: P→F ${row.p2f.length}${row.p2f.length ? ` (${row.p2f.join(', ')})` : ''}; F→P ${row.f2p.length}${row.f2p.length ? ` (${row.f2p.join(', ')})` : ''}`);
    }
    if (outcome.simulated) command.output.line(simulationNote);
    return 0;
  } finally {
    await command.close();
  }
}
