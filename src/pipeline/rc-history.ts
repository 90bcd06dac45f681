// What earlier RCs did, read from git (so it survives losing the database): for the
// synthesizer, per RC its intent, the gate's reasons, the files it edited, its scope and the
// cases it fixed and broke with their symptoms; for the diagnostician, the previous report and
// the last RC, so it can check whether that change took effect.
import { affectedCases, diagnosisReportSchema, type DiagnosisReport } from '../domain/diagnosis.ts';
import type { FlipSymptom, RcHistoryEntry } from '../domain/model-port.ts';
import { z } from '../domain/zod.ts';
import type { Case } from '../domain/case.ts';
import { caseChanges, comparable, type CaseChanges } from '../domain/case-changes.ts';
import { AgentdevelError } from '../domain/errors.ts';
import { parseCases } from '../task/cases.ts';
import { loadSplit, loadTask } from '../task/load.ts';
import { diagnosticsFolder, releaseFolder } from '../stages/release/artifacts.ts';
import { readDecisionLog, type LogEntry } from './decision-log.ts';
import { auditRef } from './versions.ts';
import type { Workspace } from './workspace.ts';

const flipRow = z.object({ caseId: z.string(), symptom: z.string().nullable() });
const flipsFileSchema = z.object({ f2p: z.array(flipRow), p2f: z.array(flipRow) });

async function readJson(workspace: Workspace, ref: string, file: string): Promise<unknown> {
  const text = await workspace.repo.readFileAt(ref, file);
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A file that is not JSON tells the roles nothing; the decision log still holds the case ids.
    return null;
  }
}

/**
 * The diagnosis report recorded with an iteration, or null when it has none (a candidate
 * gated by hand) or was written in a shape this version no longer reads: it is context for
 * the roles, never a required input.
 */
export async function recordedReport(workspace: Workspace, iteration: number): Promise<DiagnosisReport | null> {
  const parsed = diagnosisReportSchema.safeParse(await readJson(workspace, auditRef(workspace.config, iteration), `${diagnosticsFolder(workspace.config.blueprint, iteration)}/report.json`));
  return parsed.success ? parsed.data : null;
}

function withSymptoms(ids: readonly string[], rows: ReadonlyArray<{ caseId: string; symptom: string | null }>): FlipSymptom[] {
  const symptoms = new Map(rows.map((r) => [r.caseId, r.symptom]));
  return ids.map((caseId) => ({ caseId, symptom: symptoms.get(caseId) ?? null }));
}

async function historyEntry(workspace: Workspace, entry: LogEntry): Promise<RcHistoryEntry> {
  const { config, repo } = workspace;
  const ref = auditRef(config, entry.iteration);
  const folder = releaseFolder({ blueprint: config.blueprint, outcome: entry.decision, release: entry.tag, iteration: entry.iteration });
  const flips = flipsFileSchema.safeParse(await readJson(workspace, ref, `${folder}/flips.json`));
  const rows = flips.success ? flips.data : { f2p: [], p2f: [] };
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
  const file = `rubrics/${workspace.config.task}/train.jsonl`;
  const before = await workspace.repo.readFileAt(auditRef(workspace.config, iteration), file);
  if (before === null) return null;
  let old: Case[];
  try {
    old = parseCases(before, file);
  } catch (error) {
    // An older split this version cannot read says nothing about what changed; the current one is checked when it loads.
    if (error instanceof AgentdevelError) return null;
    throw error;
  }
  const task = await loadTask(workspace.root, workspace.config.task);
  return caseChanges(old, await loadSplit(task, 'train'));
}
