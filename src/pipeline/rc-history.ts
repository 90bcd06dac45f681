// What earlier RCs did, read from git (so it survives losing the database): for the
// synthesizer, per RC its intent, the gate's reasons, the files it edited, its scope and the
// cases it fixed and broke with their symptoms; for the diagnostician, the previous report and
// the last RC, so it can check whether that change took effect.
import { affectedCases, type DiagnosisReport } from '../domain/diagnosis.ts';
import { readDiagnosisReportDocument, readFlipsDocument } from '../domain/git-documents.ts';
import type { FlipSymptom, RcHistoryEntry } from '../domain/model-port.ts';
import { diagnosticsFolder, releaseFolder } from '../stages/release/artifacts.ts';
import { readDecisionLog, type LogEntry } from './decision-log.ts';
import { auditRef } from './versions.ts';
import type { Workspace } from './workspace.ts';

/** A document of the history, parsed by its versioned reader; null when the commit has no such file. */
async function readDocument<T>(workspace: Workspace, ref: string, file: string, read: (text: string, file: string) => T): Promise<T | null> {
  const text = await workspace.repo.readFileAt(ref, file);
  // Absent is an answer (a candidate gated by hand has no diagnosis); damaged history is an error.
  return text === null ? null : read(text, `${ref}:${file}`);
}

/** The diagnosis report recorded with an iteration, or null when it has none (a candidate gated by hand). */
export async function recordedReport(workspace: Workspace, iteration: number): Promise<DiagnosisReport | null> {
  const file = `${diagnosticsFolder(workspace.config.blueprint, iteration)}/report.json`;
  return readDocument(workspace, auditRef(workspace.config, iteration), file, readDiagnosisReportDocument);
}

function withSymptoms(ids: readonly string[], rows: ReadonlyArray<{ caseId: string; symptom: string | null }>): FlipSymptom[] {
  const symptoms = new Map(rows.map((r) => [r.caseId, r.symptom]));
  return ids.map((caseId) => ({ caseId, symptom: symptoms.get(caseId) ?? null }));
}

async function historyEntry(workspace: Workspace, entry: LogEntry): Promise<RcHistoryEntry> {
  const { config, repo } = workspace;
  const ref = auditRef(config, entry.iteration);
  const folder = releaseFolder({ blueprint: config.blueprint, outcome: entry.decision, release: entry.tag, iteration: entry.iteration });
  const rows = (await readDocument(workspace, ref, `${folder}/flips.json`, readFlipsDocument)) ?? { f2p: [], p2f: [] };
  const report = await recordedReport(workspace, entry.iteration);
  // An RC built by iterate is one commit on its base; its edits are that commit's changes.
  const edited = (await repo.changedPaths(`${entry.commit}^`, entry.commit)).map((c) => c.path).filter((p) => p.startsWith(`blueprints/${config.blueprint}/`));
  return {
    iteration: entry.iteration,
    targets: entry.targets,
    rationale: entry.rationale,
    decision: entry.decision,
    reasons: entry.reasons,
    fingerprint: entry.fingerprint ?? '',
    fixed: withSymptoms(entry.f2pCases, rows.f2p),
    broken: withSymptoms(entry.p2fCases, rows.p2f),
    edited,
    scope: report ? affectedCases(report, entry.targets) : [],
  };
}

/** Every recorded RC, oldest first. */
export async function readRcHistory(workspace: Workspace): Promise<RcHistoryEntry[]> {
  return Promise.all((await readDecisionLog(workspace)).map((entry) => historyEntry(workspace, entry)));
}

/** The diagnostician's view of the last recorded iteration: its report and its RC. */
export async function previousDiagnosis(
  workspace: Workspace,
  history: readonly RcHistoryEntry[],
): Promise<{ previousReport: DiagnosisReport | null; lastRc: RcHistoryEntry | null }> {
  const lastRc = history.at(-1) ?? null;
  return { previousReport: lastRc ? await recordedReport(workspace, lastRc.iteration) : null, lastRc };
}
