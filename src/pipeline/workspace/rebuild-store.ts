// A fresh clone (or a deleted .agentdevel/) starts with an empty store. On first use it is
// rebuilt from what the decisions recorded in git: the taxonomy as it stood at each decision
// (labels only grow, so their union) and the runs each gate used, with their per-case-trial
// verdicts, and the traces a later diagnosis reads. The store is a cache; git is the record.
import type { Config } from '../../config/schema.ts';
import type { CaseRecord } from '../../domain/record.ts';
import { parseJsonDocument } from '../../domain/json-document.ts';
import { RUNS_FILE, runsDocumentSchema, type RecordedRun } from '../../domain/run-summary-document.ts';
import { TAXONOMY_FILE, taxonomyDocumentSchema } from '../../domain/taxonomy-document.ts';
import type { HistoryReader, RefReader } from '../../domain/ports/repository.ts';
import { openRunTraces } from '../../stages/run/trace-file.ts';
import type { DecisionIndex, RunIndex, SymptomVocabulary } from '../../domain/ports/record-store.ts';
import { auditRefPrefix, pendingRefPrefix } from './versions.ts';

export interface RebuiltStore {
  readonly runs: number;
  readonly labels: number;
}

/** Traces of runs rebuilt from git go here, beside (never over) the traces this clone writes. */
export const GIT_TRACES = 'from-git';

/**
 * Reads into the store the decision documents in git it has not read yet: those of the line's
 * tip and of the RC refs (refs/agentdevel/rc and pending, present after `agentdevel sync`). A
 * fresh clone reads them all on first use; a later pull or sync brings only the new ones. Runs
 * the store already holds are kept as they are; the taxonomy only grows.
 */
export async function rebuildStoreFromGit(deps: { repo: RefReader & HistoryReader; store: RunIndex & SymptomVocabulary & DecisionIndex; config: Config; tracesRoot: string }): Promise<RebuiltStore> {
  const { repo, store, config } = deps;
  // One git process for the refs, one for the files under releases/ of every commit they name,
  // and one for the documents not read yet: however many releases and RCs the line has.
  // A CI checkout may hold the line only as the remote's branch.
  const line = [`refs/heads/${config.line.branch}`, `refs/remotes/origin/${config.line.branch}`];
  const refs = await repo.refDetails([...line, auditRefPrefix(config), pendingRefPrefix(config)]);
  const tip = refs.find((r) => r.ref === line[0]) ?? refs.find((r) => r.ref === line[1]);
  // A ref moved onto something else than a commit holds no decision (approve says so when asked).
  const commits = [...(tip ? [tip] : []), ...refs.filter((r) => !line.includes(r.ref))].flatMap((r) => (r.type === 'commit' && r.commit && r.tree ? [{ commit: r.commit, tree: r.tree }] : []));
  const listings = await repo.filesUnderTrees(
    commits.map((c) => c.tree),
    `releases/${config.blueprint}`,
  );
  const done = store.importedDocuments();
  // The same blob under several commits is one document.
  const files = new Map<string, { commit: string; path: string; blob: string }>();
  for (const { commit, tree } of commits) {
    for (const file of listings.get(tree) ?? []) {
      const name = file.path.split('/').at(-1);
      if ((name === RUNS_FILE || name === TAXONOMY_FILE) && !done.has(file.blob) && !files.has(file.blob)) files.set(file.blob, { commit, ...file });
    }
  }
  if (files.size === 0) return { runs: 0, labels: 0 };
  const wanted = [...files.values()].sort((a, b) => a.path.localeCompare(b.path));
  const texts = await repo.readTexts(wanted.map((file) => file.blob));
  let runs = 0;
  const labels = new Map<string, string>();
  for (const [index, file] of wanted.entries()) {
    const text = texts[index];
    if (text === null || text === undefined) continue;
    const where = `${file.path} (at ${file.commit.slice(0, 10)})`;
    if (file.path.endsWith(TAXONOMY_FILE)) {
      for (const entry of parseJsonDocument(text, where, taxonomyDocumentSchema, 'STORE_DAMAGED').labels) if (!labels.has(entry.label)) labels.set(entry.label, entry.description);
    } else {
      for (const run of parseJsonDocument(text, where, runsDocumentSchema, 'STORE_DAMAGED').runs) {
        if (store.run(run.runId)) continue;
        const records = await recordsOf(run, deps.tracesRoot);
        if (store.importRun(run.runId, { ...run }, run.purpose, run.status, records)) runs += 1;
      }
    }
    store.markImported(file.blob, file.path);
  }
  for (const [label, description] of [...labels].sort(([a], [b]) => a.localeCompare(b))) store.addSymptom(label, description, null);
  return { runs, labels: labels.size };
}

async function recordsOf(run: RecordedRun, tracesRoot: string): Promise<CaseRecord[]> {
  const traces = run.records.some((r) => r.trace !== null) ? openRunTraces(tracesRoot, `${GIT_TRACES}/${run.runId}`) : null;
  const records: CaseRecord[] = [];
  try {
    for (const { trace, ...record } of run.records) {
      // A record without its trace points where none is: readers say the trace is absent.
      const traceRef = trace && traces ? await traces.append(trace) : `${GIT_TRACES}/${run.runId}/not-kept/${record.caseId}.t${record.trial}.jsonl`;
      records.push({ ...record, traceRef });
    }
    await traces?.close();
  } catch (error) {
    await traces?.abandon();
    throw error;
  }
  return records;
}
