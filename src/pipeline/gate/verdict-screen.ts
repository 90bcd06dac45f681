// Under gate.policy "flips" the baseline's screen is the verdict (stages/gate/compare.ts,
// paperGate): each case's flip is read off the screen against the candidate's run, with no
// confirmation on fresh trials. A screen read from an earlier run (this store's, or one recorded
// in git with an earlier decision) against a candidate run now would blame any drift since (a
// model behind the same id that changed, a service the tools call) on the candidate. So under
// "flips" the baseline is run again beside the candidate, and the screen's text says why. The
// statistical gates reuse recorded screens: there they only select cases, and every verdict
// rests on fresh trials of both sides run together.
import { resolvePolicy } from '../../stages/gate/compare.ts';
import { recordBaseline, type BaselineScreen } from '../run/execute-run.ts';
import { withCheckout } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';

export async function screenForVerdict(context: PipelineContext, baseline: { readonly commit: string; readonly label: string; readonly screen: BaselineScreen | null }): Promise<BaselineScreen | null> {
  const { screen } = baseline;
  if (!screen || resolvePolicy(context.workspace.config.gate.policy) !== 'flips') return screen;
  const earlier = screen.records.filter((r) => r.origin !== 'fresh');
  if (earlier.length === 0) return screen;
  const where = earlier.map((r) => `run ${r.runId}${r.origin === 'git' ? ' (recorded in git)' : ''}`).join(', ');
  const reason = `gate.policy is "flips", where the screen is the verdict: the baseline runs beside the candidate rather than being read from ${where}, recorded earlier (drift since would be blamed on the candidate)`;
  return withCheckout(context.workspace, baseline.commit, (source) => recordBaseline(context, source, baseline.label, screen.records.length, { fresh: { reason } }));
}
