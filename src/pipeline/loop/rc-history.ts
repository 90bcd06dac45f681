// What earlier RCs did, read from git (so it survives losing the database): for the
// synthesizer, per RC its intent, the gate's reasons, the files it edited, its scope and the
// cases it fixed and broke with their symptoms; for the diagnostician, the previous report and
// the last RC, so it can check whether that change took effect.
import { ATTRIBUTION_FILE, parseAttributionDocument } from '../../domain/attribution.ts';
import { affectedCases, type DiagnosisReport } from '../../domain/diagnosis.ts';
import { readDiagnosisReportDocument, readFlipsDocument } from '../../domain/git-documents.ts';
import type { FlipSymptom, RcHistoryEntry } from '../../domain/ports/model.ts';
import type { Case } from '../../domain/case.ts';
import { caseChanges, comparable, type CaseChanges } from '../../domain/case-changes.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { parseCases } from '../../domain/cases-file.ts';
import { diagnosticsFolder, releaseFolder } from '../../stages/release/artifacts.ts';
import { readDecisionLog, type LogEntry } from '../workspace/decision-log.ts';
import { auditRef } from '../workspace/versions.ts';
import type { Workspace } from '../workspace/workspace.ts';

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
  const attribution = await readDocument(workspace, ref, `${diagnosticsFolder(config.blueprint, entry.iteration)}/${ATTRIBUTION_FILE}`, parseAttributionDocument);
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
    ...(attribution ? { brokenBy: attribution.flips.filter((f) => f.direction === 'p2f').map(({ caseId, edits, evidence }) => ({ caseId, edits, evidence })) } : {}),
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
): Promise<{ previousReport: DiagnosisReport | null; lastRc: RcHistoryEntry | null; caseChanges: CaseChanges | null }> {
  const last = history.at(-1) ?? null;
  if (!last) return { previousReport: null, lastRc: null, caseChanges: null };
  const changes = await trainChangesSince(workspace, last.iteration);
  // The last RC's flips are shown only over cases present, unchanged, on both sides.
  const same = comparable(changes);
  const lastRc = { ...last, fixed: last.fixed.filter((f) => same(f.caseId)), broken: last.broken.filter((b) => same(b.caseId)) };
  return { previousReport: await recordedReport(workspace, last.iteration), lastRc, caseChanges: changes };
}

/**
 * The train cases added, removed or edited since an iteration: its split as recorded in git
 * (the RC's audit ref) against the working tree's. Null when the older split cannot be read.
 */
async function trainChangesSince(workspace: Workspace, iteration: number): Promise<CaseChanges | null> {
  const old = await trainCasesAt(workspace, auditRef(workspace.config, iteration), null);
  if (old === null) return null;
  const task = await workspace.files.tasks.loadTask(workspace.root, workspace.config.task);
  return caseChanges(old, await workspace.files.tasks.loadSplit(task, 'train'));
}

/**
 * The train cases a change adds, removes or edits between two commits (a person's change to the
 * task, against where it was cut). Null when the older split cannot be read; the newer one's
 * errors name its file and line.
 */
export async function trainChangesBetween(workspace: Workspace, from: string, to: string): Promise<CaseChanges | null> {
  // A task the change creates has no cases before it: every case is added.
  const old = await trainCasesAt(workspace, from, []);
  if (old === null) return null;
  const file = `rubrics/${workspace.config.task}/train.jsonl`;
  const text = await workspace.repo.readFileAt(to, file);
  return caseChanges(old, text === null ? [] : parseCases(text, `${to.slice(0, 10)}:${file}`));
}

/** A commit's train split as git holds it (`absent` when it has none); null when this version cannot read it. */
async function trainCasesAt(workspace: Workspace, commit: string, absent: Case[] | null): Promise<Case[] | null> {
  const file = `rubrics/${workspace.config.task}/train.jsonl`;
  const text = await workspace.repo.readFileAt(commit, file);
  if (text === null) return absent;
  try {
    return parseCases(text, file);
  } catch (error) {
    // An older split this version cannot read says nothing about what changed; the current one is checked when it loads.
    if (error instanceof AgentdevelError) return null;
    throw error;
  }
}
