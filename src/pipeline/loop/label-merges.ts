// Merges of synonym labels the diagnostician proposes with its report. Each is applied only as
// an alias (records, earlier decisions and this iteration's recorded report keep their labels),
// in effect from this iteration's synthesis on: the synthesizer's enum, the report it reads and
// the gate's hit rate then see one label. The aliases go to git (refs/agentdevel/labels/<bp>,
// like `labels merge`) once the iteration has an outcome.
import { reportThroughAliases, type DiagnosisReport } from '../../domain/diagnosis.ts';
import { aliasMap, mergeAliases, type LabelAlias, type LabelMergeProposal } from '../../domain/label-aliases.ts';
import type { SymptomEntry } from '../../domain/ports/model.ts';
import { symptomVocabulary } from '../../domain/symptoms.ts';
import type { BaselineScreen } from '../run/execute-run.ts';
import type { CaseTrialPart, ReportingPart, WorkspacePart } from '../context.ts';
import { readLabelAliases, writeLabelAliases } from '../workspace/label-aliases.ts';
import { aliasesInEffect } from '../../domain/label-aliases.ts';

export interface SynthesisView<C extends WorkspacePart = WorkspacePart> {
  /** The diagnosis report as the synthesizer reads it (through the aliases in effect). */
  readonly report: DiagnosisReport;
  /** The labels an RC may target. */
  readonly vocabulary: readonly SymptomEntry[];
  /** The baseline's screen, its symptoms read through the aliases (the gate's hit rate). */
  readonly screen: BaselineScreen;
  /** The proposals adopted as aliases (shown in the report). */
  readonly adopted: readonly LabelMergeProposal[];
  /** Records the adopted aliases in git (call once the iteration has an outcome). */
  record(base: string): Promise<void>;
  /** The iteration's context from synthesis on: its store reads labels through the merges too. */
  readonly context: C;
}

/** `context` with its workspace's store read through `aliases` (a view: other holders of the store read as before). */
export function readingThrough<C extends WorkspacePart>(context: C, aliases: ReadonlyMap<string, string>): C {
  return { ...context, workspace: { ...context.workspace, store: context.workspace.store.throughAliases(aliases) } };
}

export async function adoptLabelMerges<C extends WorkspacePart & Pick<CaseTrialPart, 'clock'> & Pick<ReportingPart, 'reporter'>>(
  context: C,
  input: {
    readonly iteration: number;
    readonly proposals: readonly LabelMergeProposal[];
    readonly report: DiagnosisReport;
    readonly vocabulary: readonly SymptomEntry[];
    readonly screen: BaselineScreen;
    readonly baselineRunId: string;
  },
): Promise<SynthesisView<C>> {
  const { repo, config } = context.workspace;
  const effective = { iteration: input.iteration, stage: 'synthesis' as const };
  const recorded = (await readLabelAliases(repo, config)).aliases;
  const before = aliasesInEffect(recorded, { iteration: input.iteration, stage: 'start' });
  const inEffect = aliasesInEffect(recorded, effective);
  const added: LabelAlias[] = [];
  const adopted: LabelMergeProposal[] = [];
  const at = context.clock.now().toISOString();
  for (const proposal of input.proposals) {
    const aliases = mergeAliases([...inEffect, ...added], proposal.labels, proposal.into, { by: 'diagnostician', reason: proposal.reason, at, effective, evidence: proposal.evidence });
    if (typeof aliases === 'string') {
      context.reporter.emit({ type: 'warning', message: `label merge of ${proposal.labels.join(', ')} not applied: ${aliases}` });
      continue;
    }
    added.push(...aliases);
    adopted.push(proposal);
  }
  const record = async (base: string): Promise<void> => {
    const written = await writeLabelAliases(repo, config, added, base);
    if (written.length > 0) context.reporter.emit({ type: 'stage', stage: 'diagnose', message: `labels: ${written.map((a) => `${a.from} now reads as ${a.to}`).join(', ')} (proposed by the diagnostician; recorded on refs/agentdevel/labels/${config.blueprint})` });
  };
  // Nothing new from this iteration's synthesis on: the diagnosis is read as it was written.
  if (added.length === 0 && inEffect.length === before.length) return { report: input.report, vocabulary: input.vocabulary, screen: input.screen, adopted, record, context };
  const synthesis = readingThrough(context, aliasMap([...inEffect, ...added]));
  const { store } = synthesis.workspace;
  const canonical = (label: string): string => store.canonicalLabel(label);
  const merges = [...inEffect.slice(before.length), ...added].map((a) => `${a.from} → ${a.to}`);
  const report = reportThroughAliases(input.report, canonical);
  return {
    report: { ...report, notes: [...(report.notes ?? []), `labels merged from this iteration on (aliases; the records keep their labels): ${merges.join(', ')}`] },
    vocabulary: symptomVocabulary(store.taxonomy(), store.eachRecord(input.baselineRunId)),
    screen: { ...input.screen, cases: new Map([...input.screen.cases].map(([id, c]) => [id, c.symptom === null ? c : { ...c, symptom: canonical(c.symptom) }])) },
    adopted,
    record,
    context: synthesis,
  };
}
