// Each model role's request for the workspace as it stands, built from what is already
// recorded: no model is called, nothing runs, nothing is written to the store or the line.
// `agentdevel prompts` renders these, so a reviewer reads what a model would be sent.
import { synthesisEvidence } from './synthesis-evidence.ts';
import path from 'node:path';
import type { DiagnosisReport } from '../../domain/diagnosis.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { CriticRequest, DiagnosisScriptRequest, RequirementsReviewRequest, SymptomEntry, SynthesisRequest } from '../../domain/ports/model.ts';
import type { CaseRecord } from '../../domain/record.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import { criticJudged } from '../../domain/requirements.ts';
import { declaredSymptoms, withDeclared } from '../../domain/symptoms.ts';
import { diagnosisView, failingLabels, listedFailingCases } from '../../stages/diagnose/diagnose.ts';
import { RECORD_SCHEMA_DOC } from '../../stages/diagnose/record-schema.ts';
import { diagnosticsFolder } from '../../stages/release/artifacts.ts';
import { readTrace, TraceDamaged } from '../../stages/run/trace-file.ts';
import { previousDiagnosis, readRcHistory } from './rc-history.ts';
import { readTaskBrief } from './task-brief.ts';
import { auditRef } from '../workspace/versions.ts';
import type { Workspace } from '../workspace/workspace.ts';

export const promptRoles = ['critic', 'reviewer', 'diagnostician', 'synthesizer'] as const;
export type PromptRole = (typeof promptRoles)[number];

export type RoleRequest =
  | { readonly role: 'critic'; readonly request: CriticRequest }
  | { readonly role: 'reviewer'; readonly request: RequirementsReviewRequest }
  | { readonly role: 'diagnostician'; readonly request: DiagnosisScriptRequest }
  | { readonly role: 'synthesizer'; readonly request: SynthesisRequest };

export interface RoleRequestPreview {
  readonly built: RoleRequest;
  /** Where each part of the request came from, for the reader. */
  readonly sources: string[];
}

/** The newest recorded train run of the blueprint and task as they are in the working tree. */
async function latestRecords(workspace: Workspace): Promise<{ runId: string | null; records: CaseRecord[] }> {
  const { root, config, store } = workspace;
  const [blueprintTree, taskTree] = (await workspace.repo.folderFingerprints(root, [`blueprints/${config.blueprint}`, `rubrics/${config.task}`])) as [string, string];
  const run = store.latestRun(blueprintTree, taskTree, 'train');
  return run ? { runId: run.id, records: store.records(run.id) } : { runId: null, records: [] };
}

/** A record's trace; null when it is gone (traces/ is not in git); what is wrong with it when it is damaged. */
async function traceOf(workspace: Workspace, record: CaseRecord): Promise<TraceEvent[] | null | { damaged: string }> {
  try {
    return await readTrace(workspace.tracesRoot, record.traceRef);
  } catch (error) {
    if (error instanceof TraceDamaged) return { damaged: error.message };
    throw error;
  }
}

const runNote = (runId: string | null): string =>
  runId ? `records: run ${runId}, the newest run of this blueprint version` : 'records: none yet (no recorded run of this blueprint version; `agentdevel run` records one)';

/** Runs of this blueprint version looked through for a record whose trace is still readable. */
const CRITIC_RUNS_SCANNED = 8;
/** Records of one run whose traces are tried before the next run is. */
const TRACES_TRIED = 3;

/**
 * The record the critic preview shows: the named case's (or the first failing one's) in the
 * newest run of this version whose trace of it can still be read. A fresh clone's store holds
 * runs from git whose traces were not kept; those are passed over for one that kept them
 * (traces/from-git/), as `show` reads them.
 */
async function criticRecord(workspace: Workspace, caseId: string | null): Promise<{ runId: string | null; record: CaseRecord | null; read: TraceEvent[] | null | { damaged: string } }> {
  const { root, config, store } = workspace;
  const [blueprintTree, taskTree] = (await workspace.repo.folderFingerprints(root, [`blueprints/${config.blueprint}`, `rubrics/${config.task}`])) as [string, string];
  const runs = store.latestRuns(blueprintTree, taskTree, 'train', CRITIC_RUNS_SCANNED);
  let fallback: { runId: string; record: CaseRecord; read: null | { damaged: string } } | null = null;
  for (const run of runs) {
    // A run keeps the traces of all its records or of none: a few tries tell which.
    let tries = 0;
    for (const only of [{ failing: true }, {}]) {
      for (const record of store.eachRecord(run.id, only)) {
        if ((caseId !== null && record.caseId !== caseId) || tries >= TRACES_TRIED) continue;
        tries += 1;
        const read = await traceOf(workspace, record);
        if (Array.isArray(read)) return { runId: run.id, record, read };
        fallback ??= { runId: run.id, record, read };
      }
    }
  }
  return fallback ?? { runId: runs[0]?.id ?? null, record: null, read: null };
}

/**
 * The critic's request for one case, exactly as a run would send it (stages/run gradeCaseTrial):
 * the rubric, the trace without model metadata, the scorer result, the taxonomy the next run
 * starts from (the rubric's declared labels included), and the case's requirements no scorer
 * decides, which the critic must give a verdict each.
 */
async function criticRequest(workspace: Workspace, caseId: string | null): Promise<RoleRequestPreview> {
  const { root, config, store } = workspace;
  const task = await workspace.files.tasks.loadTask(root, config.task);
  const cases = await workspace.files.tasks.loadSplit(task, 'train');
  if (caseId !== null && !cases.some((c) => c.id === caseId)) {
    throw new AgentdevelError('USAGE', `--case: the train split (${path.join(task.root, 'train.jsonl')}) has no case "${caseId}"`);
  }
  const { runId, record, read } = await criticRecord(workspace, caseId);
  const trace = Array.isArray(read) ? read : null;
  const shown = record?.caseId ?? caseId ?? cases[0]?.id ?? '(none)';
  const testCase = cases.find((c) => c.id === shown);
  const requirements = testCase ? criticJudged(task.requirements, testCase) : [];
  const traceNote =
    read !== null && !Array.isArray(read)
      ? `trace: empty, the recorded trace of case ${shown} is damaged (${read.damaged}); \`agentdevel run\` records a new one`
      : trace
        ? `trace and scorer result: case ${shown}, trial ${record?.trial ?? 0}${runId ? ` (run ${runId})` : ''}`
        : `trace: empty (no recorded run of this blueprint version kept a trace of case ${shown}; \`agentdevel run\` records one)`;
  const taxonomy = withDeclared(store.taxonomy(), declaredSymptoms(task.requirements), (label) => store.canonicalLabel(label));
  return {
    built: {
      role: 'critic',
      request: { model: config.models.critic, rubric: task.rubric, trace: trace ?? [], scorer: record?.scorer ?? null, taxonomy, ...(requirements.length > 0 ? { requirements } : {}) },
    },
    sources: [
      runNote(runId),
      traceNote,
      requirements.length > 0 ? `requirements: ${requirements.map((r) => r.id).join(', ')} (case ${shown}'s, which no scorer decides)` : `requirements: none for the critic (case ${shown})`,
      'taxonomy: the store, with the rubric\'s declared labels',
    ],
  };
}

/**
 * The taxonomy as the store has it, plus the labels of the last recorded report: a fresh clone
 * has no store yet, and the report in git still says which labels the last iteration spoke.
 */
function knownTaxonomy(workspace: Workspace, report: DiagnosisReport | null): SymptomEntry[] {
  const taxonomy = workspace.store.taxonomy();
  const known = new Set(taxonomy.map((s) => s.label));
  // A label merged since the report was written reads as its target (the alias, see `labels merge`).
  const fromReport = (report?.dominantSymptoms ?? [])
    .filter((s) => !known.has(s.label) && workspace.store.canonicalLabel(s.label) === s.label)
    .map((s) => ({ label: s.label, description: s.description }));
  return [...taxonomy, ...fromReport];
}

async function recordedScript(workspace: Workspace, iteration: number): Promise<string | null> {
  return workspace.repo.readFileAt(auditRef(workspace.config, iteration), `${diagnosticsFolder(workspace.config.blueprint, iteration)}/diagnosis.mjs`);
}

async function diagnosticianRequest(workspace: Workspace): Promise<RoleRequestPreview> {
  const { config } = workspace;
  const { runId, records } = await latestRecords(workspace);
  const history = await readRcHistory(workspace);
  const previous = await previousDiagnosis(workspace, history);
  const { sample, vocabulary } = await diagnosisView(() => records, workspace.tracesRoot, knownTaxonomy(workspace, previous.previousReport));
  const last = history.at(-1);
  return {
    built: {
      role: 'diagnostician',
      request: {
        model: config.models.diagnostician,
        recordSchema: RECORD_SCHEMA_DOC,
        sampleRecords: sample,
        limits: { timeoutMs: config.sandbox.timeoutMs, memoryMb: config.sandbox.memoryMb },
        taxonomy: vocabulary,
        previousScript: last ? await recordedScript(workspace, last.iteration) : null,
        ...previous,
        repair: null,
        failingCases: listedFailingCases(failingLabels(records)),
      },
    },
    sources: [runNote(runId), 'taxonomy: the store and the last recorded report, with the labels of the failing records', last ? `previous script, report and RC: iteration ${last.iteration} (git)` : 'previous iteration: none recorded'],
  };
}

/** Cases the reviewer preview shows: the gate shows it the cases whose outcome moved, a handful. */
const REVIEWED_CASES = 3;

/**
 * The requirements layer's review, as the gate would ask it: the rubric and its requirements,
 * and the traces of a few cases of the newest run (failing ones first) in place of the cases
 * whose outcome a candidate moved.
 */
async function reviewerRequest(workspace: Workspace): Promise<RoleRequestPreview> {
  const { root, config } = workspace;
  const task = await workspace.files.tasks.loadTask(root, config.task);
  const { runId, records } = await latestRecords(workspace);
  const cases: Array<{ caseId: string; trace: TraceEvent[] }> = [];
  for (const record of [...records.filter((r) => r.pass === false), ...records.filter((r) => r.pass !== false)]) {
    if (cases.length >= REVIEWED_CASES || record.status !== 'ok' || cases.some((c) => c.caseId === record.caseId)) continue;
    const trace = await traceOf(workspace, record);
    if (Array.isArray(trace)) cases.push({ caseId: record.caseId, trace });
  }
  return {
    built: {
      role: 'reviewer',
      request: { model: config.models.critic, rubric: task.rubric, requirements: task.requirements.map((r) => ({ id: r.id, text: r.text, symptoms: r.symptoms })), cases },
    },
    sources: [
      runNote(runId),
      `cases: ${cases.length === 0 ? 'none with a readable trace (`agentdevel run` records some)' : cases.map((c) => c.caseId).join(', ')} (the gate shows the cases whose outcome a candidate moved)`,
      `requirements: ${task.requirements.length === 0 ? 'none declared in the rubric' : task.requirements.map((r) => r.id).join(', ')}`,
    ],
  };
}

const noDiagnosis: DiagnosisReport = {
  summary: '(no diagnosis recorded yet: each iteration of `agentdevel iterate` writes one here)',
  totals: { records: 0, failing: 0, infraErrors: 0 },
  dominantSymptoms: [],
  patterns: [],
  representativeCases: [],
  affectedSurface: [],
};

async function synthesizerRequest(workspace: Workspace): Promise<RoleRequestPreview> {
  const { root, config } = workspace;
  const { runId, records } = await latestRecords(workspace);
  const history = await readRcHistory(workspace);
  const { previousReport, lastRc } = await previousDiagnosis(workspace, history);
  const { vocabulary } = await diagnosisView(() => records, workspace.tracesRoot, knownTaxonomy(workspace, previousReport));
  return {
    built: {
      role: 'synthesizer',
      request: {
        model: config.models.synthesizer,
        blueprintName: config.blueprint,
        blueprintRoot: `blueprints/${config.blueprint}`,
        blueprint: await workspace.files.blueprints.readBrief(root, config.blueprint),
        files: await workspace.files.blueprints.readFiles(root, config.blueprint),
        diagnosis: previousReport ?? noDiagnosis,
        evidence: await synthesisEvidence(previousReport ?? noDiagnosis, records, await workspace.files.tasks.loadSplit(await workspace.files.tasks.loadTask(root, config.task), 'train'), async (record) => { const trace = await traceOf(workspace, record); return Array.isArray(trace) ? trace : []; }, config.evidence),
        history,
        taxonomy: vocabulary,
        task: await readTaskBrief(workspace, root),
        repair: null,
      },
    },
    sources: [
      'blueprint and task: the working tree',
      runNote(runId),
      lastRc ? `diagnosis: the report recorded in iteration ${lastRc.iteration} (iterate writes a fresh one before it asks)` : 'diagnosis: none recorded yet (a placeholder)',
      `earlier release candidates: ${history.length} (git)`,
    ],
  };
}

export async function currentRoleRequest(workspace: Workspace, role: PromptRole, caseId: string | null): Promise<RoleRequestPreview> {
  switch (role) {
    case 'critic':
      return criticRequest(workspace, caseId);
    case 'reviewer':
      return reviewerRequest(workspace);
    case 'diagnostician':
      return diagnosticianRequest(workspace);
    case 'synthesizer':
      return synthesizerRequest(workspace);
  }
}
