import type { GradientDocument } from '../../domain/gradient.ts';
import { GRADIENT_FILE, parseGradientDocument } from '../../domain/gradient.ts';
import type { BlueprintFile } from '../../domain/ports/model.ts';
import { addUsage, zeroUsage, type Usage } from '../../domain/ports/model.ts';
import { caseRequirements } from '../../domain/requirements.ts';
import { blueprintComponents } from '../../domain/blueprint-components.ts';
import { admitClaims, buildGradient, eventMember, evidenceIndex, type TrialEvidence } from '../../stages/gradient/build.ts';
import { readTraceOrNote } from '../../stages/run/trace-file.ts';
import type { ModelPart, ReportingPart, WorkspacePart } from '../context.ts';
import { gradientRef } from '../workspace/versions.ts';

/**
 * Builds this iteration's gradient records from the release's run (its records, traces and
 * verdicts in the store), lets the model phrase claims over them when its engine can (claims
 * whose pointers do not resolve are dropped and counted). `write` puts the document in git on
 * its own ref: the loop calls it once the iteration has an outcome, so an iteration that ends in
 * an infrastructure failure leaves nothing in git.
 */
export async function recordGradient(
  context: WorkspacePart & Pick<ModelPart, 'model'> & Pick<ReportingPart, 'reporter'>,
  input: {
    readonly iteration: number;
    readonly release: string;
    readonly releaseCommit: string;
    readonly runId: string;
    readonly files: readonly BlueprintFile[];
    readonly checkout: string;
    /** The helpfulness judge's verdicts of this run by call site, when credit asked it (null: no judge). */
    readonly helpful: ReadonlyMap<string, boolean> | null;
  },
): Promise<{ document: GradientDocument; ref: string; usage: Usage; write: () => Promise<void> }> {
  const { workspace } = context;
  const { config, store, repo } = workspace;
  const task = await workspace.files.tasks.loadTask(input.checkout, config.task);
  const cases = new Map((await workspace.files.tasks.loadSplit(task, 'train')).map((c) => [c.id, c]));
  const unreadable: string[] = [];
  const trials: TrialEvidence[] = [];
  for (const record of store.eachRecord(input.runId)) {
    const testCase = cases.get(record.caseId);
    trials.push({
      record,
      trace: await readTraceOrNote(workspace.tracesRoot, record.traceRef, unreadable),
      requirements: testCase ? caseRequirements(task.requirements, testCase as unknown as Record<string, unknown>) : task.requirements,
    });
  }
  const members = [...new Set(trials.flatMap((t) => t.trace.flatMap((e) => eventMember(e) ?? [])))];
  const components = blueprintComponents(input.files, `blueprints/${config.blueprint}`, { traceMembers: members });
  let document = buildGradient({ iteration: input.iteration, blueprint: config.blueprint, release: input.release, runId: input.runId, components, trials, helpful: input.helpful });
  let usage = zeroUsage;
  if (context.model.phraseGradient) {
    const phrased = await context.model.phraseGradient({ model: config.models.diagnostician, gradient: document });
    usage = addUsage(usage, phrased.usage);
    document = admitClaims(document, phrased.value.claims, evidenceIndex(input.runId, trials));
    if (document.dropped.count > 0) {
      context.reporter.emit({ type: 'warning', message: `gradient: ${document.dropped.count} model-phrased claim${document.dropped.count === 1 ? '' : 's'} dropped for evidence that does not resolve` });
    }
  }
  const ref = gradientRef(config, input.iteration);
  const content = `${JSON.stringify(document, null, 2)}\n`;
  const write = async (): Promise<void> => {
    // An iteration number is taken again after an iteration with no RC (numbers come from the
    // audit refs): the new records chain onto the earlier attempt's, so the ref only moves
    // forward (a clone that synced the earlier one pushes a fast-forward) and both stay in history.
    const old = await repo.refValue(ref);
    const commit = await repo.documentCommit(old ?? input.releaseCommit, [{ name: GRADIENT_FILE, content }], `gradient records of iteration ${input.iteration} (${input.release}, run ${input.runId})\n`);
    await repo.updateRefs([{ ref, newValue: commit, oldValue: old }]);
  };
  return { document, ref, usage, write };
}

/** The gradient document recorded for an iteration, or null when it has none. */
export async function readGradient(context: WorkspacePart, iteration: number): Promise<GradientDocument | null> {
  const { repo, config } = context.workspace;
  const ref = gradientRef(config, iteration);
  const text = await repo.readFileAt(ref, GRADIENT_FILE);
  return text === null ? null : parseGradientDocument(text, `${ref}:${GRADIENT_FILE}`);
}
