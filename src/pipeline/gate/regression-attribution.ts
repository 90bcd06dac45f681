// The gate's attribution of a rejected RC's regressions (attribution.onRejection, off by
// default): each P→F case traced to the edit it depends on, on fresh trials, before the
// rejection is recorded, so the document goes to git with it and the synthesizer's next request
// (read from git) says which edit broke what. Bounded: RCs of more than attribution.maxEdits
// edited files are not attributed, and the rest spend at most 2 × edits variant runs of the
// regressed cases (one run for a single edit), each case on as many fresh trials as the
// confirmation planner gives a regression (or attribution.variantTrials). Its model calls are
// charged to the iteration in the cost ledger, like the gate's own.
import { ATTRIBUTION_SCHEMA, type AttributionDocument } from '../../domain/attribution.ts';
import type { PipelineContext } from '../context.ts';
import { attributeVariants } from './attribute.ts';

/** The rejected candidate: its label and commit, what its edits are measured from, and the paths it changed. */
export interface RejectedCandidate {
  readonly ref: string;
  readonly commit: string;
  readonly changeBase: string;
  readonly edits: ReadonlyArray<{ readonly path: string }>;
}

export async function attributeRegressions(context: PipelineContext, subject: RejectedCandidate, regressions: readonly string[]): Promise<AttributionDocument | null> {
  const { config } = context.workspace;
  if (!config.attribution.onRejection || regressions.length === 0) return null;
  const folder = `blueprints/${config.blueprint}/`;
  const edits = subject.edits.map((e) => e.path).filter((p) => p.startsWith(folder));
  if (edits.length === 0) return null;
  if (edits.length > config.attribution.maxEdits) {
    context.reporter.emit({ type: 'warning', message: `attribution: ${subject.ref} edits ${edits.length} files, more than attribution.maxEdits (${config.attribution.maxEdits}); its regressions are not attributed` });
    return null;
  }
  context.reporter.emit({ type: 'stage', stage: 'attribute', message: `${subject.ref} is rejected with ${regressions.length} regression${regressions.length === 1 ? '' : 's'}: tracing each to the edit it depends on` });
  const traced = await attributeVariants(context, {
    candidate: subject.commit,
    base: subject.changeBase,
    edits,
    flips: regressions.map((caseId) => ({ caseId, direction: 'p2f' as const })),
    trials: config.attribution.variantTrials ?? null,
    // After every trial number the gate used: the release's records and the candidate's confirmation.
    firstTrial: config.trials * (config.gate.baselineRecords + 1) + config.gate.maxConfirmTrials,
    label: subject.ref,
  });
  return { schema: ATTRIBUTION_SCHEMA, candidate: subject.commit, base: subject.changeBase, edits, flips: traced.flips, cost: traced.cost, simulated: traced.simulated };
}
