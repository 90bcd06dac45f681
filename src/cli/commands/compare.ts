import { AgentdevelError } from '../../domain/errors.ts';
import type { RunStats } from '../../stages/gate/compare.ts';
import { compareRuns } from '../../stages/gate/compare.ts';
import { summarizeCases } from '../../stages/gate/flips.ts';
import { openStoreWorkspace } from '../../pipeline/store-workspace.ts';
import { presentation, workspaceDir, type CommonOptions, type Io } from '../context.ts';

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
    const baselineRecords = store.records(baseline!.id);
    const candidateRecords = store.records(candidate!.id);
    const trialsPerCase = Math.max(
      ...[...summarizeCases(baselineRecords).values(), ...summarizeCases(candidateRecords).values()].map((c) => c.graded),
      1,
    );
    const comparison = compareRuns({
      baseline: baselineRecords,
      candidate: candidateRecords,
      policy: workspace.policy,
      plannedTrials: trialsPerCase,
      knownFlaky: store.knownFlaky(baseline!.taskTree, [baseline!.blueprintTree, candidate!.blueprintTree]),
      intent: null,
    });
    const { decision } = comparison;
    if (decision.verdict === 'undecided') throw new AgentdevelError('MODEL_UNAVAILABLE', `cannot decide: ${decision.reasons.join('; ')}`);
    if (output.json) {
      output.result({
        baseline: statsJson(comparison.baseline),
        candidate: statsJson(comparison.candidate),
        flips: { p2f: decision.p2f, f2p: decision.f2p, flaky: decision.flaky },
        significant: decision.significant,
        pValue: decision.pValue,
        policy: decision.policy,
        decision: decision.verdict,
        reasons: decision.reasons,
      });
    } else {
      for (const [label, stats] of [['baseline', comparison.baseline], ['candidate', comparison.candidate]] as const) {
        output.line(`${label.padEnd(9)}  pass ${pct(stats.passRate)}  pass^k ${table(stats.passHat)}  pass@k ${table(stats.passAt)}  (${stats.cases} cases × ${stats.trials} trials)`);
      }
      output.line(`flips: ${decision.p2f.length} P→F, ${decision.f2p.length} F→P, ${decision.flaky.length} flaky  (policy: ${decision.policy}, paired sign test p = ${decision.pValue.toFixed(4)})`);
      output.line(`significant regressions: ${decision.significant.regressions.join(', ') || 'none'}`);
      output.line(`decision: ${decision.verdict}`);
      for (const reason of decision.reasons) output.line(`  - ${reason}`);
    }
    return decision.verdict === 'accept' ? 0 : 1;
  } finally {
    await workspace.close();
  }
}
