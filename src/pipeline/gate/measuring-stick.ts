// What a person's change does to the measuring stick (domain/human-change.ts): the sealed test
// split, which it may change only when the user says so, and the grading (the rubric, the
// scorers, the environment), which it may change but never silently. Read from git only, so the
// refusal comes before anything is run or written.
import { createHash } from 'node:crypto';
import type { Config } from '../../config/schema.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { GradingChange, TestSplitChange } from '../../domain/human-change.ts';
import type { HistoryReader } from '../../domain/ports/repository.ts';
import { taskFolder } from '../../stages/gate/change-scope.ts';

/** The flag that lets a change to the test split through the gate. */
export const RESEAL_TEST_FLAG = '--reseal-test';

export function testSplitPath(config: Pick<Config, 'task'>): string {
  return `${taskFolder(config.task)}test.jsonl`;
}

/** The splits are the cases, not the grading: a case change is listed by id (and the test split is sealed). */
function isGradingFile(file: string, folder: string): boolean {
  return file !== `${folder}train.jsonl` && file !== `${folder}test.jsonl`;
}

/**
 * How the change moves the test split (edit, delete, add cases, move away): its blob at the fork
 * point against the candidate's; null when it is the same. Without `reseal` a change is refused
 * (exit 2), naming the split and the flag, before anything is run or written.
 */
export async function testSplitChange(
  repo: Pick<HistoryReader, 'treeId'>,
  config: Pick<Config, 'task'>,
  change: { readonly ref: string; readonly base: string; readonly commit: string; readonly reseal: boolean },
): Promise<TestSplitChange | null> {
  const path = testSplitPath(config);
  const before = await repo.treeId(change.base, path);
  const after = await repo.treeId(change.commit, path);
  if (before === after) return null;
  if (!change.reseal) {
    const what = after === null ? 'deletes (or moves)' : before === null ? 'adds' : 'changes';
    throw new AgentdevelError('TEST_SPLIT_SEALED', `--candidate: "${change.ref}" ${what} ${path}, the sealed test split; a change to it is gated only when asked for with ${RESEAL_TEST_FLAG}`, {
      hint: `Leave ${path} out of the change, or gate it with ${RESEAL_TEST_FLAG}: the release then records the new split's seal, and test results before it are on another split.`,
      location: { file: path },
    });
  }
  return { path, before, after, resealed: true };
}

/**
 * A person's change may not edit the line's records: the documents agentdevel commits with its
 * decisions (releases/<bp>/, diagnostics/<bp>/). A gate reuses what the line holds there as
 * evidence, so a merged edit of a runs.json would become a release's baseline record. Refused
 * (exit 2) before anything runs or is written.
 */
export function refuseRecordEdits(config: Pick<Config, 'blueprint'>, ref: string, changed: ReadonlyArray<{ readonly path: string }>): void {
  const records = [`releases/${config.blueprint}/`, `diagnostics/${config.blueprint}/`];
  const edited = changed.map((c) => c.path).filter((file) => records.some((folder) => file.startsWith(folder)));
  if (edited.length === 0) return;
  const shown = edited.length > 3 ? `${edited.slice(0, 3).join(', ')} and ${edited.length - 3} more` : edited.join(', ');
  throw new AgentdevelError('RECORDS_EDITED', `--candidate: "${ref}" edits the line's records (${shown}); only agentdevel's decisions write them`, { location: { file: edited[0] as string } });
}

/**
 * The grading's versions, when the candidate's differs from the release's: the digest of the
 * task folder's files but its splits, at each side. Null when they are the same.
 */
export async function gradingChange(
  repo: Pick<HistoryReader, 'filesUnder'>,
  config: Pick<Config, 'task'>,
  release: { readonly commit: string; readonly label: string },
  candidate: { readonly commit: string; readonly label: string },
): Promise<GradingChange | null> {
  const folder = taskFolder(config.task);
  const filesOf = async (commit: string) => new Map((await repo.filesUnder(commit, folder)).filter((f) => isGradingFile(f.path, folder)).map((f) => [f.path, f.blob]));
  const before = await filesOf(release.commit);
  const after = await filesOf(candidate.commit);
  const files = [...new Set([...before.keys(), ...after.keys()])].filter((file) => before.get(file) !== after.get(file)).sort();
  if (files.length === 0) return null;
  return {
    files: files.map((file) => file.slice(folder.length)),
    release: { digest: gradingDigest(before), commit: release.commit, label: release.label },
    candidate: { digest: gradingDigest(after), commit: candidate.commit, label: candidate.label },
  };
}

/** A short content digest of the grading files: their paths and git blob ids, in path order. */
function gradingDigest(files: ReadonlyMap<string, string>): string {
  const listing = [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([file, blob]) => `${blob} ${file}\n`).join('');
  return createHash('sha256').update(listing).digest('hex').slice(0, 12);
}
