import type { DiagnosisReport } from '../../domain/diagnosis.ts';
import type { CaseRecord } from '../../domain/record.ts';
import { NO_VERDICT_LABEL } from '../../domain/symptoms.ts';

/**
 * What the synthesizer reads when no diagnosis script runs (the `no-diagnosis` ablation): the
 * failing records as they come, in case and trial order, with the critic's label of each. No
 * script groups them, ranks them, or finds the trace patterns behind them: symptoms are listed
 * in the order their first failing record appears, not by how many cases they cover.
 */
export function rawRecordsReport(records: Iterable<CaseRecord>): DiagnosisReport {
  let total = 0;
  let infraErrors = 0;
  const failing: Array<{ caseId: string; label: string; description: string }> = [];
  for (const record of records) {
    total += 1;
    if (record.status !== 'ok') infraErrors += 1;
    else if (record.pass === false) {
      const judged = record.critic && !record.critic.pass;
      failing.push({
        caseId: record.caseId,
        label: judged ? (record.critic?.label ?? NO_VERDICT_LABEL) : NO_VERDICT_LABEL,
        description: judged ? (record.critic?.description ?? '') : 'failed by the scorer; the critic gave no verdict',
      });
    }
  }
  const byLabel = new Map<string, { description: string; caseIds: string[] }>();
  for (const f of failing) {
    const entry = byLabel.get(f.label) ?? { description: f.description, caseIds: [] };
    if (!entry.caseIds.includes(f.caseId)) entry.caseIds.push(f.caseId);
    byLabel.set(f.label, entry);
  }
  return {
    summary: `${failing.length} failing records of ${total}, unaggregated (no diagnosis script ran)`,
    totals: { records: total, failing: failing.length, infraErrors },
    dominantSymptoms: [...byLabel].map(([label, entry]) => ({
      label,
      count: entry.caseIds.length,
      share: failing.length === 0 ? 0 : entry.caseIds.length / failing.length,
      description: entry.description,
    })),
    patterns: [],
    representativeCases: failing.slice(0, 10),
    affectedSurface: [...byLabel].map(([label, entry]) => ({ label, caseIds: entry.caseIds })),
    notes: ['ablation no-diagnosis: these are the raw records in case order; no script looked for dominant symptoms or trace patterns'],
  };
}
