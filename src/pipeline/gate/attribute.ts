import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AttributionCost, FlipAttribution, FlipDirection } from '../../domain/attribution.ts';
import type { CaseOutcome } from '../../domain/case-summary.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { attributeFlips, attributionBound, unexplainedByReverts, variantTrials } from '../../stages/attribute/attribution.ts';
import { computeFlips } from '../../stages/gate/flips.ts';
import { runVersion } from '../run/execute-run.ts';
import { withCheckout, type VersionSource } from '../workspace/checkout.ts';
import type { PipelineContext } from '../context.ts';
import { lineTip } from '../workspace/workspace.ts';

export interface AttributionOutcome {
  readonly candidate: string;
  readonly base: string;
  readonly edits: readonly string[];
  readonly flips: readonly FlipAttribution[];
  /** The runs of the base and the candidate on the train split: run now (case-trials), or reused. */
  readonly fullRuns: { readonly caseTrials: number; readonly reused: number };
  /** The variant runs made and the case-trials they cost, against the bound stated first. */
  readonly cost: AttributionCost;
  readonly simulated: boolean;
}

export interface VariantRequest {
  /** Resolved commits. */
  readonly candidate: string;
  readonly base: string;
  /** The edited files (paths relative to the workspace) whose reverts are tried. */
  readonly edits: readonly string[];
  readonly flips: ReadonlyArray<{ readonly caseId: string; readonly direction: FlipDirection }>;
  /** Fresh trials per case in each variant; null: as many as the confirmation planner gives a case of its family. */
  readonly trials: number | null;
  /** Trial numbers start here, after every trial the candidate has run, so each variant is a fresh draw. */
  readonly firstTrial: number;
  /** How the runs are labelled ("iter-004", a branch). */
  readonly label: string;
}

/**
 * `agentdevel attribute RC [--base REF]`: runs the base and the candidate on the train split
 * (2 × cases × config.trials case-trials, none for a version already recorded), computes the
 * flips, then traces each to the edit (changed file of the blueprint) it depends on. The whole
 * bound is stated before the first run.
 */
export async function attribute(context: PipelineContext, input: { readonly candidate: string; readonly base: string | null; readonly trials: number | null }): Promise<AttributionOutcome> {
  const { workspace, reporter } = context;
  const { repo, config } = workspace;
  const candidate = await repo.resolve(input.candidate);
  if (!candidate) throw new AgentdevelError('REF_NOT_FOUND', `attribute: "${input.candidate}" names no commit in ${workspace.root}`);
  const base = input.base ? await repo.resolve(input.base) : await repo.mergeBase(candidate, await lineTip(workspace));
  if (!base) throw new AgentdevelError('REF_NOT_FOUND', `attribute: --base "${input.base ?? '(the fork point from the line)'}" names no commit`);
  const edits = await blueprintEdits(context, base, candidate);
  if (edits.length === 0) throw new AgentdevelError('USAGE', `attribute: ${input.candidate} changes nothing in blueprints/${config.blueprint}/`);
  const request = { split: 'train' as const, trials: config.trials, purpose: 'run' as const };
  const trialsText = input.trials === null ? "fresh trials as the gate's confirmation planner would give each case" : `${input.trials} fresh trials a case`;
  reporter.emit({
    type: 'stage',
    stage: 'attribute',
    message: `${edits.length} edits: the base and the candidate on the train split (2 runs of every case × ${config.trials} trial${config.trials === 1 ? '' : 's'}; none for a version already recorded), then at most ${edits.length > 1 ? 2 * edits.length : edits.length} variant runs of the flipped cases, ${trialsText}`,
  });
  const baseRun = await withCheckout(workspace, base, (source) => runVersion(context, { ...request, source, label: `${input.candidate} base` }));
  const rcRun = await withCheckout(workspace, candidate, (source) => runVersion(context, { ...request, source, label: input.candidate }));
  const flips = computeFlips(baseRun.cases, rcRun.cases);
  const flipped = [...flips.f2p.map((caseId) => ({ caseId, direction: 'f2p' as const })), ...flips.p2f.map((caseId) => ({ caseId, direction: 'p2f' as const }))];
  const traced = await attributeVariants(context, { candidate, base, edits, flips: flipped, trials: input.trials, firstTrial: config.trials, label: input.candidate });
  const fresh = [baseRun, rcRun].filter((r) => !r.reused);
  return {
    candidate: input.candidate,
    base,
    edits,
    flips: traced.flips,
    fullRuns: { caseTrials: fresh.reduce((n, r) => n + r.counts.caseTrials, 0), reused: 2 - fresh.length },
    cost: traced.cost,
    simulated: baseRun.simulated || rcRun.simulated || traced.simulated,
  };
}

/** The changed files of the blueprint between two commits (an edit is a file: two hunks of one file are one edit). */
export async function blueprintEdits(context: Pick<PipelineContext, 'workspace'>, base: string, candidate: string): Promise<string[]> {
  const folder = `blueprints/${context.workspace.config.blueprint}/`;
  return (await context.workspace.repo.changedPaths(base, candidate)).filter((c) => c.path.startsWith(folder)).map((c) => c.path);
}

/**
 * Traces known flips to the edits they depend on: in a checkout of the candidate, the flipped
 * cases run on fresh trials with each edit reverted alone; for what no single revert explains,
 * with each edit alone on the base. The bound (at most 2 × edits variant runs of the flipped
 * cases, one revert each for a single edit) is stated before the first run.
 */
export async function attributeVariants(context: PipelineContext, input: VariantRequest): Promise<{ flips: FlipAttribution[]; cost: AttributionCost; simulated: boolean }> {
  const { workspace, reporter } = context;
  const { repo, config } = workspace;
  const trials = variantTrials(input.flips, config.gate, input.trials);
  const bound = attributionBound(input.edits.length, input.flips.length, trials);
  reporter.emit({
    type: 'stage',
    stage: 'attribute',
    message: `${input.flips.length} flips, ${input.edits.length} edits: at most ${bound.runs} variant runs of the flipped cases (${bound.caseTrials} case-trials: ${trials} fresh trials a case)`,
  });
  if (input.flips.length === 0) return { flips: [], cost: { trials, runs: 0, caseTrials: 0, bound }, simulated: false };
  return withCheckout(workspace, input.candidate, async (source) => {
    let runs = 0;
    let caseTrials = 0;
    let simulated = false;
    /** Runs the flipped cases with the files of `fromBase` taken from the base, then restores the candidate's. */
    const variant = async (cases: readonly string[], fromBase: readonly number[], label: string): Promise<Map<string, CaseOutcome>> => {
      for (const i of fromBase) await writeVersion(source, input.edits[i] as string, await repo.readFileAt(input.base, input.edits[i] as string));
      try {
        const run = await runVersion(context, {
          split: 'train',
          trials,
          source: { commit: `${input.candidate}+${label}`, dir: source.dir },
          purpose: 'confirm',
          label: `${input.label} ${label}`,
          cases,
          firstTrial: input.firstTrial + runs * trials,
        });
        runs += 1;
        caseTrials += run.counts.caseTrials;
        simulated ||= run.simulated;
        return new Map([...run.cases].map(([id, summary]) => [id, summary.outcome]));
      } finally {
        for (const i of fromBase) await writeVersion(source, input.edits[i] as string, await repo.readFileAt(input.candidate, input.edits[i] as string));
      }
    };
    const reverted = new Map<number, Map<string, CaseOutcome>>();
    const alone = new Map<number, Map<string, CaseOutcome>>();
    for (const [i, edit] of input.edits.entries()) reverted.set(i, await variant(input.flips.map((f) => f.caseId), [i], `revert ${edit}`));
    const open = unexplainedByReverts(input.flips, reverted);
    if (open.length > 0 && input.edits.length > 1) {
      for (const [i, edit] of input.edits.entries()) {
        alone.set(i, await variant(open, input.edits.map((_, j) => j).filter((j) => j !== i), `only ${edit}`));
      }
    }
    return { flips: attributeFlips({ edits: input.edits, flips: input.flips, reverted, alone }), cost: { trials, runs, caseTrials, bound }, simulated };
  });
}

/** Writes a file of the checkout as a version has it; null (absent in that version) removes it. */
async function writeVersion(source: VersionSource, file: string, content: string | null): Promise<void> {
  const full = path.join(source.dir, file);
  if (content === null) {
    await rm(full, { force: true });
    return;
  }
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, content);
}
