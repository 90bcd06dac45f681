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
import type { DecisionIndex, DocumentOrigin, RecordReader, RunIndex, SymptomVocabulary, VerdictMemo } from '../../domain/ports/record-store.ts';
import { recordedVerdicts } from '../../domain/run-summary-document.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { auditRefPrefix, pendingRefPrefix } from './versions.ts';

export interface RebuiltStore {
  readonly runs: number;
  readonly labels: number;
  /** Documents (or runs in them) that were not read, and runs a ref records otherwise than the line: each names its ref and file. */
  readonly warnings: readonly string[];
}

/** Traces of runs rebuilt from git go here, beside (never over) the traces this clone writes. */
export const GIT_TRACES = 'from-git';

/** A run id names a folder of traces: one plain name, never a path. */
const PLAIN_RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

interface FoundDocument {
  readonly commit: string;
  readonly ref: string;
  readonly path: string;
  readonly blob: string;
  readonly origin: DocumentOrigin;
}

/**
 * Reads into the store the decision documents in git it has not read yet: those of the line's
 * tip and of the RC refs (refs/agentdevel/rc and pending, present after `agentdevel sync`). A
 * fresh clone reads them all on first use; a later pull or sync brings only the new ones.
 *
 * Only what the line committed may decide: anyone who may push can write a ref under
 * refs/agentdevel/, so the runs and labels found only there are kept as 'ref' (shown, never
 * reused, never sent to the critic nor written into the next decision's taxonomy.json), and the
 * line's copy of a run or a label wins over a ref's copy of the same id. A
 * document that does not parse is skipped with a warning naming its ref, and stops nothing.
 */
export async function rebuildStoreFromGit(deps: {
  repo: RefReader & HistoryReader;
  store: RunIndex & RecordReader & SymptomVocabulary & DecisionIndex & Pick<VerdictMemo, 'keepLineVerdicts'>;
  config: Config;
  tracesRoot: string;
}): Promise<RebuiltStore> {
  const { repo, store, config } = deps;
  // One git process for the refs, one for the files under releases/ of every commit they name,
  // and one for the documents not read yet: however many releases and RCs the line has.
  // A CI checkout may hold the line only as the remote's branch.
  const line = [`refs/heads/${config.line.branch}`, `refs/remotes/origin/${config.line.branch}`];
  const refs = await repo.refDetails([...line, auditRefPrefix(config), pendingRefPrefix(config)]);
  const tip = refs.find((r) => r.ref === line[0]) ?? refs.find((r) => r.ref === line[1]);
  // A ref moved onto something else than a commit holds no decision (approve says so when asked).
  // The line's tip comes first, so a blob it shares with a ref is read as the line's.
  const commits = [...(tip ? [{ ...tip, origin: 'git' as const }] : []), ...refs.filter((r) => !line.includes(r.ref)).map((r) => ({ ...r, origin: 'ref' as const }))].flatMap((r) =>
    r.type === 'commit' && r.commit && r.tree ? [{ ref: r.ref, commit: r.commit, tree: r.tree, origin: r.origin }] : [],
  );
  const listings = await repo.filesUnderTrees(
    [...new Set(commits.map((c) => c.tree))],
    `releases/${config.blueprint}`,
  );
  const done = store.importedDocuments();
  // The same blob under several commits is one document.
  const files = new Map<string, FoundDocument>();
  for (const { ref, commit, tree, origin } of commits) {
    for (const file of listings.get(tree) ?? []) {
      const name = file.path.split('/').at(-1);
      const wanted = name === RUNS_FILE || name === TAXONOMY_FILE;
      // A document read from a ref is read again once the line holds it: its runs become the line's.
      const read = done.get(file.blob);
      if (wanted && !files.has(file.blob) && read !== 'git' && !(read === 'ref' && origin === 'ref')) files.set(file.blob, { ref, commit, origin, ...file });
    }
  }
  if (files.size === 0) return { runs: 0, labels: 0, warnings: [] };
  // The line's documents first: a run id the line records is the line's, whatever a ref says.
  const wanted = [...files.values()].sort((a, b) => (a.origin === b.origin ? a.path.localeCompare(b.path) : a.origin === 'git' ? -1 : 1));
  const texts = await repo.readTexts(wanted.map((file) => file.blob));
  let runs = 0;
  const labels = { git: new Map<string, string>(), ref: new Map<string, string>() };
  const warnings: string[] = [];
  for (const [index, file] of wanted.entries()) {
    const text = texts[index];
    if (text === null || text === undefined) continue;
    const where = `${file.path} at ${file.ref} (${file.commit.slice(0, 10)})`;
    try {
      if (file.path.endsWith(TAXONOMY_FILE)) {
        const found = labels[file.origin];
        for (const entry of parseJsonDocument(text, where, taxonomyDocumentSchema, 'STORE_DAMAGED').labels) if (!found.has(entry.label)) found.set(entry.label, entry.description);
      } else {
        const document = parseJsonDocument(text, where, runsDocumentSchema, 'STORE_DAMAGED');
        // The verdicts the line records may be reused by any command here, as in the workspace that gave them.
        if (file.origin === 'git') store.keepLineVerdicts(recordedVerdicts(document));
        for (const run of document.runs) {
          if (!PLAIN_RUN_ID.test(run.runId)) {
            warnings.push(`${where}: the run id ${JSON.stringify(run.runId)} is not a plain name; that run was not read`);
            continue;
          }
          const held = store.run(run.runId);
          if (held && file.origin === 'ref' && held.origin !== 'ref' && !sameVerdicts(run, store.records(run.runId))) {
            warnings.push(`${where} records run ${run.runId} with other verdicts than the one ${held.origin === 'git' ? 'the line committed' : 'this workspace ran'}; the ref's copy is not used`);
          }
          if (held && !(held.origin === 'ref' && file.origin === 'git')) continue;
          const records = await recordsOf(run, deps.tracesRoot);
          if (store.importRun(run.runId, { ...run }, run.purpose, run.status, records, file.origin)) runs += 1;
        }
      }
    } catch (error) {
      // A damaged document is one warning: the others are read, and the command goes on.
      if (!(error instanceof AgentdevelError) || error.code !== 'STORE_DAMAGED') throw error;
      warnings.push(`${error.message}; the document was not read`);
      continue;
    }
    store.markImported(file.blob, file.path, file.origin);
  }
  for (const origin of ['git', 'ref'] as const) {
    for (const [label, description] of [...labels[origin]].sort(([a], [b]) => a.localeCompare(b))) store.addSymptom(label, description, null, origin);
  }
  return { runs, labels: labels.git.size + labels.ref.size, warnings };
}

/** Whether a run's recorded verdicts (status and pass of every case-trial) are those of the store's run of that id. */
function sameVerdicts(run: RecordedRun, held: readonly CaseRecord[]): boolean {
  const verdict = (r: { caseId: string; trial: number; status: string; pass: boolean | null }) => `${r.caseId}\u0000${r.trial}\u0000${r.status}\u0000${String(r.pass)}`;
  const mine = new Set(held.map(verdict));
  return run.records.length === held.length && run.records.every((r) => mine.has(verdict(r)));
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
