// One run of a team in discover: the release's checkout with the team's blueprint.json and
// prompts written in (nothing is committed), the team run on the cases asked, and (for a round)
// each member's calls judged by the helpfulness judge. Warm-up runs use the same path unjudged.
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ArchivedMember, MemberEvidence } from '../../domain/discover.ts';
import { passRateOf } from '../../domain/case-summary.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { callSites, judgeHelpfulness, siteKey, type GradedTrial } from '../../stages/credit/credit.ts';
import { memberEvidence } from '../../stages/discover/bandit.ts';
import { teamBlueprint } from '../../stages/discover/team.ts';
import { readTrace } from '../../stages/run/trace-file.ts';
import { runVersion } from '../run/execute-run.ts';
import type { PipelineContext } from '../context.ts';
import type { VersionSource } from '../workspace/checkout.ts';
import type { ReleaseCrew } from './discover-archive.ts';

export interface TeamRun {
  readonly runId: string;
  /** Case-trials run now (0 when the run was reused). */
  readonly caseTrials: number;
  readonly passRate: number;
  readonly trials: readonly GradedTrial[];
  readonly symptoms: ReadonlyArray<{ readonly label: string; readonly caseTrials: number }>;
  readonly simulated: boolean;
}

/** Runs `team` (in this order: the orchestrator lists its members so) on `cases`, in the release's checkout. */
export async function runTeam(
  context: PipelineContext,
  input: { readonly checkout: VersionSource; readonly crew: ReleaseCrew; readonly team: readonly ArchivedMember[]; readonly cases: readonly string[]; readonly firstTrial: number; readonly label: string; readonly tag: string },
): Promise<TeamRun> {
  const { workspace } = context;
  const { config, store, tracesRoot } = workspace;
  const folder = path.join(input.checkout.dir, input.crew.root);
  const manifestFile = path.join(folder, 'blueprint.json');
  const original = await readFile(manifestFile, 'utf8');
  const { manifest, prompts } = teamBlueprint(input.crew.manifest, input.crew.files, input.team);
  const written: string[] = [];
  try {
    for (const prompt of prompts) {
      const file = path.join(folder, prompt.file);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, prompt.content);
      written.push(file);
    }
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    const run = await runVersion(context, {
      source: { commit: `${input.checkout.commit}+${input.tag}`, dir: input.checkout.dir },
      split: 'train',
      trials: config.trials,
      purpose: 'run',
      label: input.label,
      cases: input.cases,
      // Each round is a fresh draw of the design split, never an earlier round's records.
      firstTrial: input.firstTrial,
    });
    const trials: GradedTrial[] = [];
    const labels = new Map<string, number>();
    for (const record of store.records(run.runId)) {
      if (record.status !== 'ok' || record.pass === null) continue;
      const trace = await readTrace(tracesRoot, record.traceRef);
      if (trace) trials.push({ caseId: record.caseId, trial: record.trial, pass: record.pass, trace });
      if (!record.pass) {
        const label = record.critic?.label ?? 'unlabelled';
        labels.set(label, (labels.get(label) ?? 0) + 1);
      }
    }
    return {
      runId: run.runId,
      caseTrials: run.reused ? 0 : run.counts.caseTrials,
      passRate: passRateOf(run.counts),
      trials,
      symptoms: [...labels].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([label, caseTrials]) => ({ label, caseTrials })),
      simulated: run.simulated,
    };
  } finally {
    await writeFile(manifestFile, original);
    for (const file of written) await rm(file, { force: true });
    // A prompt of the release that a member's file replaced comes back as the release has it.
    for (const prompt of prompts) {
      const kept = input.crew.files.get(prompt.file);
      if (kept !== undefined) await writeFile(path.join(folder, prompt.file), kept);
    }
  }
}

/**
 * The team's members judged, trajectory by trajectory, with the helpfulness judge (models.judge):
 * one request per member per case-trial it was called in, as credit per component asks it.
 */
export async function judgeTeam(context: PipelineContext, team: readonly ArchivedMember[], trials: readonly GradedTrial[]): Promise<{ evidence: MemberEvidence[]; requests: number }> {
  const components = team.map((m) => ({ name: m.name, kind: 'member' as const, description: m.description }));
  const judged = await judgeHelpfulness({ components, trials, model: context.workspace.config.models.judge }, { model: context.model });
  const trajectories = trials.map((trial) => ({
    pass: trial.pass,
    calls: new Map(components.map((c) => [c.name, callSites(c, trial.trace).map((site) => judged.verdicts.get(siteKey(trial, site.id)) === true)])),
  }));
  return { evidence: memberEvidence(team.map((m) => m.name), trajectories), requests: judged.requests };
}

/** Warm-up trajectories as the writer reads them. */
export const trajectoriesOf = (trials: readonly GradedTrial[]): Array<{ caseId: string; pass: boolean; trace: readonly TraceEvent[] }> =>
  trials.map((t) => ({ caseId: t.caseId, pass: t.pass, trace: t.trace }));
