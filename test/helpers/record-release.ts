// A decision written for its outcome from hand-made evidence, as concludeCandidate writes it
// after deciding (the store's row aside): the plan's writes, applied to a real workspace.
import type { RecordedOutcome } from '../../src/domain/decision.ts';
import { writeRelease, type Recorded } from '../../src/pipeline/gate/release.ts';
import { releaseTarget } from '../../src/pipeline/gate/release-facts.ts';
import type { Workspace } from '../../src/pipeline/workspace/workspace.ts';
import type { ReleaseEvidence } from '../../src/stages/release/artifacts.ts';
import { recordWrite } from '../../src/stages/release/plan.ts';
import { wordDiff } from '../../src/adapters/text-diff/word-diff.ts';
import { renderReportTemplate } from '../../src/adapters/template/report-templates.ts';

export async function recordRelease(workspace: Workspace, candidateDir: string, lineTip: string, evidence: ReleaseEvidence): Promise<Recorded> {
  const outcome = evidence.outcome as RecordedOutcome;
  const target = await releaseTarget(workspace, { candidateDir, candidateCommit: evidence.candidate.commit, lineTip, iteration: evidence.iteration, promoted: outcome === 'promoted', reportDir: null });
  const { recorded } = await writeRelease(workspace, recordWrite(evidence, outcome, target, { textDiff: wordDiff, templates: renderReportTemplate }));
  if (!recorded) throw new Error('recordRelease: nothing was recorded');
  return recorded;
}
