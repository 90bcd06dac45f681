import { AgentdevelError } from '../../domain/errors.ts';
import type { RunStats } from '../../stages/gate/compare.ts';
import { decideOnRecordedRuns } from '../../stages/gate/compare.ts';
import { aggregateText } from '../../stages/report/gate-text.ts';
import { openStoreWorkspace } from '../../app/workspace.ts';
import { presentation } from '../open-command.ts';
import type { CommonOptions, Io } from '../io.ts';
import { workspaceDir } from '../../app/compose.ts';

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const table = (t: Record<string, number>): string => Object.entries(t).map(([k, v]) => `${k}:${v.toFixed(3)}`).join(' ');
const statsJson = (s: RunStats) => ({ passRate: s.passRate, passHat: s.passHat, passAt: s.passAt, cases: s.cases, trials: s.trials });

/** Compares two recorded runs with the release gate's own code; exit 0 accepts, 1 rejects. */
export async function compareCommand(io: Io, options: CommonOptions, baselineName: string, candidateName: string): Promise<number> {
  const { output } = presentation(io, options);
  const workspace = await openStoreWorkspace(workspaceDir(io, options), io.clock, null);
  try {
    const { store } = workspace;
    const baseline = store.findRun(baselineName);
    const candidate = store.findRun(candidateName);
    for (const [name, run] of [[baselineName, baseline], [candidateName, candidate]] as const) {
      if (!run) throw new AgentdevelError('USAGE', `no run named or numbered "${name}" in ${workspace.root} (import one with \`agentdevel import\`)`);
    }
    const comparison = decideOnRecordedRuns({
      baseline: store.caseSummaries(baseline!.id),
      candidate: store.caseSummaries(candidate!.id),
      policy: workspace.policy,
      noise: { variedCases: store.variedCases(baseline!.taskTree) },
      intent: null,
    });
    const { decision } = comparison;
    if (decision.verdict === 'undecided') throw new AgentdevelError('GATE_UNDECIDED', `cannot decide: ${decision.reasons.join('; ')}`);
    if (output.json) {
      output.result({
        baseline: statsJson(comparison.baseline),
        candidate: statsJson(comparison.candidate),
        flips: { p2f: decision.screening.p2f, f2p: decision.screening.f2p, flaky: decision.flaky },
        significant: { regressions: decision.p2f, fixes: decision.f2p },
        worseOverall: decision.aggregate,
        tests: decision.tests,
        procedure: decision.procedure,
        power: decision.power,
        policy: decision.policy,
        decision: decision.verdict,
        reasons: decision.reasons,
        warnings: decision.warnings,
      });
    } else {
      for (const [label, stats] of [['baseline', comparison.baseline], ['candidate', comparison.candidate]] as const) {
        output.line(`${label.padEnd(9)}  pass ${pct(stats.passRate)}  pass^k ${table(stats.passHat)}  pass@k ${table(stats.passAt)}  (${stats.cases} cases × ${stats.trials} trials)`);
      }
      const { aggregate } = decision;
      output.line(`moved: ${decision.screening.p2f.length} down, ${decision.screening.f2p.length} up  (policy: ${decision.policy})`);
      output.line(`worse overall? ${aggregateText(aggregate)}`);
      output.line(`regressions the evidence supports: ${decision.p2f.join(', ') || 'none'}`);
      for (const line of decision.power?.text ?? []) output.line(line);
      output.line(`decision: ${decision.verdict}`);
      for (const reason of decision.reasons) output.line(`  - ${reason}`);
      for (const warning of decision.warnings) output.line(`  warning: ${warning}`);
    }
    return decision.verdict === 'accept' ? 0 : 1;
  } finally {
    await workspace.close();
  }
}
