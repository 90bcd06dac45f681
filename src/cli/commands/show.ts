import type { RunPurpose } from '../../domain/ports/record-store.ts';
import { visibleCase } from '../../domain/ports/runtime.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { checkReason, type CaseRecord } from '../../domain/record.ts';
import type { TraceEvent } from '../../domain/trace.ts';
import type { Workspace } from '../../pipeline/workspace/workspace.ts';
import { recordReason } from '../../stages/report/case-reasons.ts';
import { readTrace, TraceDamaged } from '../../stages/run/trace-file.ts';
import type { RunSummary } from '../../domain/ports/record-store.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import { indented, traceLine } from '../render-trace.ts';
import type { ShowOptions } from './show.options.ts';

/**
 * The run to show a case from: --run (name or id), the newest run of --ref's blueprint, or the
 * newest run that graded the case. `known`: whether the train split has the case (a case removed
 * since is still shown from the runs that graded it).
 */
async function chooseRun(workspace: Workspace, caseId: string, options: ShowOptions, known: boolean): Promise<RunSummary> {
  const { store, repo, config } = workspace;
  if (options.run && options.ref) throw new AgentdevelError('USAGE', 'show takes --run or --ref, not both');
  if (options.run) {
    const run = store.findRun(options.run);
    if (!run) throw new AgentdevelError('USAGE', `--run: no run named or numbered "${options.run}" in ${workspace.root}`, { hint: 'Run ids are printed by `agentdevel run`; `agentdevel show CASE` alone takes the newest run.' });
    if (run.split !== 'train') throw new AgentdevelError('TEST_SPLIT_SEALED', `--run: ${run.id} ran the sealed test split; show reads train runs only`);
    return run;
  }
  let blueprintTree: string | null = null;
  if (options.ref) {
    const commit = await repo.resolve(options.ref);
    if (!commit) throw new AgentdevelError('REF_NOT_FOUND', `--ref: "${options.ref}" names no commit in ${workspace.root}`);
    // Only --ref checks a version out: the run pipeline (and the bundler, the templates) loads then.
    const { withCheckout } = await import('../../pipeline/workspace/checkout.ts');
    blueprintTree = await withCheckout(workspace, commit, (source) => repo.folderFingerprint(source.dir, `blueprints/${config.blueprint}`));
  }
  const run = store.latestRunWithCase(caseId, blueprintTree);
  if (!run && !known) {
    throw new AgentdevelError('USAGE', `no case of the train split of rubrics/${config.task} has the id "${caseId}", and no run graded one`, {
      hint: 'Pass the "id" of a line of train.jsonl (`agentdevel run` lists the failing ones).',
    });
  }
  if (!run) {
    const what = options.ref ? `no train run of the blueprint of ${options.ref} graded case "${caseId}"` : `no train run graded case "${caseId}" yet`;
    throw new AgentdevelError('USAGE', `${what} in ${workspace.root}`, {
      hint: 'Check the case id (train.jsonl), or run it first: `agentdevel run`.',
    });
  }
  return run;
}

/** The trace of a record; null when it is gone (traces/ is not in git) or damaged. */
async function traceOf(workspace: Workspace, record: CaseRecord): Promise<TraceEvent[] | null> {
  try {
    return await readTrace(workspace.tracesRoot, record.traceRef);
  } catch (error) {
    if (error instanceof TraceDamaged) return null;
    throw error;
  }
}

/** `agentdevel show CASE`: why a case passed or failed: input, expected, output, each scorer's and the critic's verdict, the trace. */
export async function showCommand(io: Io, options: ShowOptions, caseId: string): Promise<number> {
  const command = await openCommand(io, options, null);
  try {
    const { workspace, output } = command;
    const task = await workspace.files.tasks.loadTask(workspace.root, workspace.config.task);
    const testCase = (await workspace.files.tasks.loadSplit(task, 'train')).find((c) => c.id === caseId) ?? null;
    const run = await chooseRun(workspace, caseId, options, testCase !== null);
    const records = workspace.store.records(run.id).filter((r) => r.caseId === caseId);
    const trials = [];
    for (const record of records) trials.push({ record, trace: await traceOf(workspace, record) });
    if (output.json) {
      output.result({
        caseId,
        run: { id: run.id, name: run.name, purpose: run.purpose, commit: run.commit, startedAt: run.startedAt, simulated: run.simulated, origin: run.origin },
        input: testCase ? visibleCase(testCase, task.gradingPaths) : null,
        expected: testCase?.expected ?? null,
        trials: trials.map(({ record, trace }) => ({ ...record, reason: recordReason(record), trace })),
      });
      return 0;
    }
    output.line(`${caseId} in ${run.id} (${runWords(run.purpose)} of ${commitWords(run.commit)}, ${run.startedAt})${run.simulated ? ' — simulated: the mock engine played the agent' : ''}`);
    // Anyone who may push can write a ref under refs/agentdevel/: say so when that is all there is.
    if (run.origin === 'ref') output.line('  read from a ref under refs/agentdevel/ only, not from the line: shown, never reused by a gate');
    output.line('input:');
    output.line(indented(testCase ? visibleCase(testCase, task.gradingPaths) : '(not in the train split any more)'));
    output.line('expected:');
    output.line(indented(testCase?.expected ?? '(none)'));
    for (const { record, trace } of trials) {
      const verdict = record.status === 'infra_error' ? 'INFRA_ERROR' : record.pass ? 'PASS' : 'FAIL';
      output.line('');
      output.line(`trial ${record.trial}: ${verdict}${record.pass === false || record.status === 'infra_error' ? ` — ${recordReason(record)}` : ''}`);
      if (record.error) output.line(`  error: ${record.error}`);
      output.line('  output:');
      output.line(indented(record.output ?? 'nothing'));
      output.line('  scorers:');
      if (!record.scorer) output.line('    none (the critic decides)');
      for (const check of record.scorer?.checks ?? []) output.line(`    ${check.pass ? 'pass' : 'FAIL'}  ${check.pass ? check.scorer : checkReason(check)}${check.code ? `  [${check.code}]` : ''}`);
      output.line(`  critic: ${record.critic ? `${record.critic.pass ? 'pass' : 'FAIL'}  ${record.critic.label}  ${record.critic.description}` : 'not asked'}`);
      if (record.agentError) output.line(`  agent error: ${record.agentError}`);
      output.line(`  trace (traces/${record.traceRef}):`);
      if (trace === null) output.line('    (the trace file is gone or damaged: traces/ is not kept in git)');
      else trace.forEach((event, i) => output.line(`    ${String(i + 1).padStart(3)}  ${traceLine(event)}`));
    }
    return 0;
  } finally {
    await command.close();
  }
}

const PURPOSE_WORDS: Record<RunPurpose, string> = {
  run: 'a run',
  baseline: "the baseline's run",
  candidate: "a candidate's run",
  test: 'a test-split evaluation',
  confirm: 'a confirmation run',
};
const runWords = (purpose: RunPurpose): string => PURPOSE_WORDS[purpose] ?? `a ${purpose} run`;

/** A run's commit in words: "1a2b3c4d5e", "1a2b3c4d5e with uncommitted edits", or "uncommitted files (no commit yet)". */
function commitWords(commit: string): string {
  const [sha, dirty] = commit.split('+');
  const known = sha && /^[0-9a-f]{7,}$/.test(sha);
  if (!known) return dirty ? 'uncommitted files (no commit yet)' : commit;
  return `${sha.slice(0, 10)}${dirty ? ' with uncommitted edits' : ''}`;
}
