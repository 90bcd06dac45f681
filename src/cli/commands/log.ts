import { hitRateByEditType, readDecisionLog } from '../../pipeline/workspace/decision-log.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import type { LogOptions } from './log.options.ts';

export async function logCommand(io: Io, options: LogOptions): Promise<number> {
  const command = await openCommand(io, options, null, 'at_start', 'unused');
  try {
    const entries = await readDecisionLog(command.workspace);
    for (const entry of entries) {
      if (command.output.json) {
        command.output.result(entry);
        continue;
      }
      const cost = entry.costUsd === null ? '' : `  $${entry.costUsd.toFixed(4)}`;
      command.output.line(
        `${entry.rc}  ${entry.decision.padEnd(8)}  ${(entry.tag ?? '-').padEnd(20)}  F→P ${String(entry.f2p).padStart(3)}  P→F ${String(entry.p2f).padStart(3)}${cost}${entry.simulated ? '  (simulated)' : ''}${entry.ablation ? `  ABLATED: ${entry.ablation}` : ''}`,
      );
      if (entry.editsByType) {
        const groups = Object.entries(entry.editsByType).filter(([, components]) => components.length > 0);
        command.output.line(`    edits${entry.editsInferred ? ' (inferred from the diff)' : ''}: ${groups.map(([type, components]) => `${type} ${components.join(', ')}`).join('; ')}`);
      }
    }
    if (!command.output.json && entries.some((e) => e.editsByType)) {
      const rates = hitRateByEditType(entries).filter((r) => r.rcs > 0);
      command.output.line(`hit rate by edit type: ${rates.map((r) => `${r.type} ${r.fixes === 0 ? 'n/a' : `${((100 * r.hits) / r.fixes).toFixed(0)}%`} (${r.hits}/${r.fixes} fixes, ${r.rcs} RC${r.rcs === 1 ? '' : 's'})`).join(' · ')}`);
    }
    if (!command.output.json && entries.some((e) => e.ablation)) {
      command.output.line(`ABLATED: decided under an experiment's switch (iterate --ablate) on the scratch line ${command.workspace.config.line.branch}; never a release of the real line`);
    }
    if (!command.output.json && entries.length === 0) {
      command.output.line('no release candidates yet: run `agentdevel iterate`');
      command.output.line('(on a fresh clone, fetch them first: git does not fetch refs/agentdevel/* by default; `agentdevel sync --fetch-only`)');
    }
    if (!command.output.json && entries.some((e) => e.decision === 'rejected')) {
      command.output.line('rejected RCs keep their report on refs/agentdevel/: `agentdevel report iter-NNN` writes it');
    }
    return 0;
  } finally {
    await command.close();
  }
}
