import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CaseOutcome } from '../../domain/case-summary.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { attributeFlips, unexplainedByReverts, type FlipAttribution, type FlipDirection } from '../../stages/attribute/attribution.ts';
import { computeFlips } from '../../stages/gate/flips.ts';
import { runVersion, withCheckout, type RunContext, type VersionSource } from '../run/execute-run.ts';
import { lineTip } from '../workspace/workspace.ts';

export interface AttributionOutcome {
  readonly candidate: string;
  readonly base: string;
  readonly edits: readonly string[];
  readonly flips: readonly FlipAttribution[];
  /** The variant runs made and the case-trials they cost, against the bound stated first. */
  readonly runs: number;
  readonly caseTrials: number;
  readonly bound: { readonly runs: number; readonly caseTrials: number };
  readonly simulated: boolean;
}

/**
 * Traces each flip of a candidate to the edit (changed file of the blueprint) it depends on:
 * runs the base and the candidate, then the flipped cases only, on fresh trials, with each edit
 * reverted alone, and for what that leaves unexplained with each edit alone. At most
 * 2 × edits variant runs of the flipped cases, stated before the first one starts.
 */
export async function attribute(context: RunContext, input: { readonly candidate: string; readonly base: string | null }): Promise<AttributionOutcome> {
  const { workspace, reporter } = context;
  const { repo, config } = workspace;
  const candidate = await repo.resolve(input.candidate);
  if (!candidate) throw new AgentdevelError('REF_NOT_FOUND', `attribute: "${input.candidate}" names no commit in ${workspace.root}`);
  const base = input.base ? await repo.resolve(input.base) : await repo.mergeBase(candidate, await lineTip(workspace));
  if (!base) throw new AgentdevelError('REF_NOT_FOUND', `attribute: --base "${input.base ?? '(the fork point from the line)'}" names no commit`);
  const folder = `blueprints/${config.blueprint}/`;
  const changed = (await repo.changedPaths(base, candidate)).filter((c) => c.path.startsWith(folder));
  if (changed.length === 0) throw new AgentdevelError('USAGE', `attribute: ${input.candidate} changes nothing in ${folder}`);
  const edits = changed.map((c) => c.path);
  const request = { split: 'train' as const, trials: config.trials };

  const baseRun = await withCheckout(workspace, base, (source) => runVersion(context, { ...request, source, purpose: 'run', label: `${input.candidate} base` }));
  return withCheckout(workspace, candidate, async (source) => {
    const rcRun = await runVersion(context, { ...request, source, purpose: 'run', label: input.candidate });
    const flips = computeFlips(baseRun.cases, rcRun.cases);
    const flipped: Array<{ caseId: string; direction: FlipDirection }> = [
      ...flips.f2p.map((caseId) => ({ caseId, direction: 'f2p' as const })),
      ...flips.p2f.map((caseId) => ({ caseId, direction: 'p2f' as const })),
    ];
    const bound = { runs: 2 * edits.length, caseTrials: 2 * edits.length * flipped.length * config.trials };
    reporter.emit({
      type: 'stage',
      stage: 'attribute',
      message: `${flipped.length} flips, ${edits.length} edits: at most ${bound.runs} variant runs of the flipped cases (${bound.caseTrials} case-trials), on fresh trials`,
    });
    let runs = 0;
    let caseTrials = 0;
    let simulated = baseRun.simulated || rcRun.simulated;
    /** Runs the flipped cases with the files of `fromBase` taken from the base, then restores the candidate's. */
    const variant = async (cases: readonly string[], fromBase: readonly number[], label: string): Promise<Map<string, CaseOutcome>> => {
      for (const i of fromBase) await writeVersion(source, edits[i] as string, await repo.readFileAt(base, edits[i] as string));
      try {
        const run = await runVersion(context, {
          ...request,
          source: { commit: `${candidate}+${label}`, dir: source.dir },
          purpose: 'confirm',
          label: `${input.candidate} ${label}`,
          cases,
          firstTrial: config.trials * (runs + 1),
        });
        runs += 1;
        caseTrials += cases.length * config.trials;
        simulated ||= run.simulated;
        return new Map([...run.cases].map(([id, summary]) => [id, summary.outcome]));
      } finally {
        for (const i of fromBase) await writeVersion(source, edits[i] as string, await repo.readFileAt(candidate, edits[i] as string));
      }
    };
    const reverted = new Map<number, Map<string, CaseOutcome>>();
    const alone = new Map<number, Map<string, CaseOutcome>>();
    if (flipped.length > 0) {
      for (const [i, edit] of edits.entries()) reverted.set(i, await variant(flipped.map((f) => f.caseId), [i], `revert ${edit}`));
      const open = unexplainedByReverts(flipped, reverted);
      if (open.length > 0 && edits.length > 1) {
        for (const [i, edit] of edits.entries()) {
          alone.set(i, await variant(open, edits.map((_, j) => j).filter((j) => j !== i), `only ${edit}`));
        }
      }
    }
    return {
      candidate: input.candidate,
      base,
      edits,
      flips: attributeFlips({ edits, flips: flipped, reverted, alone }),
      runs,
      caseTrials,
      bound,
      simulated,
    };
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
