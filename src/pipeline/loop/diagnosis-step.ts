// The iteration's diagnosis step: the diagnostician's script run over the release's failures, or,
// under the `no-diagnosis` ablation, the raw records in its place; and how its report is named.
import path from 'node:path';
import type { CaseRecord } from '../../domain/record.ts';
import type { GradientDocument } from '../../domain/gradient.ts';
import { zeroUsage, type RcHistoryEntry, type SymptomEntry } from '../../domain/ports/model.ts';
import { symptomVocabulary } from '../../domain/symptoms.ts';
import { diagnose, type DiagnoseResult } from '../../stages/diagnose/diagnose.ts';
import { rawRecordsReport } from '../../stages/diagnose/raw-records.ts';
import type { ModelPart, ReportingPart, UntrustedCodePart, WorkspacePart } from '../context.ts';
import { auditRef } from '../workspace/versions.ts';
import { previousDiagnosis } from './rc-history.ts';

/** The `no-diagnosis` ablation: the raw records stand in for the report, and no script runs. */
export type Diagnosed = DiagnoseResult | (Omit<DiagnoseResult, 'source' | 'script' | 'reportFile'> & { readonly source: 'none' });

/** Diagnoses the failures of the release's ordinary run (`runId`), with what earlier RCs tried (`history`). */
export async function diagnoseRelease(
  context: WorkspacePart & Pick<ModelPart, 'model'> & Pick<UntrustedCodePart, 'sandbox'> & Pick<ReportingPart, 'reporter'>,
  input: { readonly iteration: number; readonly runId: string; readonly history: readonly RcHistoryEntry[]; readonly gradient: GradientDocument | null; readonly ablated: boolean },
): Promise<Diagnosed> {
  const { workspace, reporter } = context;
  const { config, store } = workspace;
  if (input.ablated) return undiagnosed(store.records(input.runId), store.taxonomy());
  return diagnose(
    {
      runId: input.runId,
      tracesRoot: workspace.tracesRoot,
      workDir: path.join(workspace.stateDir, 'diagnose', `iter-${String(input.iteration).padStart(3, '0')}`),
      previousScript: await previousScript(context, input.iteration),
      ...(await previousDiagnosis(workspace, input.history)),
      model: config.models.diagnostician,
      taxonomy: store.taxonomy(),
      limits: config.sandbox,
      maxRepairs: config.repairs.diagnosis,
      gradient: input.gradient,
    },
    { model: context.model, sandbox: context.sandbox, reporter, records: store },
  );
}

function undiagnosed(records: readonly CaseRecord[], taxonomy: readonly SymptomEntry[]): Diagnosed {
  return { report: rawRecordsReport(records), source: 'none', attempts: [], usage: zeroUsage, vocabulary: symptomVocabulary(taxonomy, records), labelMerges: [] };
}

/** How the diagnosis was made, in words for the summary and the decision's reasons. */
export function diagnosisNote(diagnosis: Diagnosed): string {
  if (diagnosis.source === 'none') return 'diagnosis: none (ablation no-diagnosis: the synthesizer read the raw records)';
  if (diagnosis.source === 'generated') return 'diagnosis: the generated script was used';
  const failed = diagnosis.attempts.filter((a) => !a.ok);
  return failed.length === 0
    ? 'diagnosis: built-in diagnosis script used'
    : `diagnosis: built-in diagnosis used after ${failed.length} failed attempt${failed.length === 1 ? '' : 's'} (last: ${failed.at(-1)?.error ?? 'unknown'})`;
}

/** The diagnosis script of the latest recorded iteration: the soft reference for this one. */
async function previousScript(context: WorkspacePart, iteration: number): Promise<string | null> {
  const { repo, config } = context.workspace;
  for (let previous = iteration - 1; previous >= 1; previous -= 1) {
    const ref = auditRef(config, previous);
    const script = await repo.readFileAt(ref, `diagnostics/${config.blueprint}/iter-${String(previous).padStart(3, '0')}/diagnosis.mjs`);
    if (script !== null) return script;
  }
  return null;
}
