// What a person's change touches beyond the blueprint, and what the gate made of each kind of
// path, in the words every output of a decision uses (the CLI, the PR summary, report.md,
// report.html). Plain text: each output escapes it for its own format.
import type { GradingChange, HumanChange, TestSplitChange } from '../../domain/human-change.ts';

const listed = (ids: readonly string[]): string => (ids.length === 0 ? 'none' : ids.join(', '));

/** One line per fact, the most telling first; empty when the change is the blueprint alone. */
export function changeLines(change: HumanChange | null): string[] {
  if (!change) return [];
  const lines: string[] = [];
  const { task, config, notGated, grading, testSplit } = change;
  // The measuring stick first: a change to it changes what every figure below means.
  if (testSplit) lines.push(testSplitLine(testSplit));
  if (grading) lines.push(gradingLine(grading));
  if (!change.blueprint) {
    lines.push(task ? "no blueprint change: the release measured on the candidate's task" : 'no blueprint change and no task change: the candidate runs the release as it is');
  }
  if (task) {
    // Decisions recorded before the grading line named its files here.
    const files = grading === undefined ? task.paths.filter((p) => p !== `${task.folder}train.jsonl`).map((p) => p.slice(task.folder.length)) : [];
    lines.push(
      `task edits (${task.folder}): cases added ${listed(task.cases.added)}; removed ${listed(task.cases.removed)}; edited ${listed(task.cases.edited)}` +
        (files.length > 0 ? `; rubric and scorer files changed: ${files.join(', ')}` : ''),
    );
    lines.push(`both sides measured on the candidate's task: the baseline is ${task.baseline.label} (${task.baseline.commit.slice(0, 10)}, the release's blueprint in the candidate's tree, on no branch)`);
    const shown = task.releaseOnCases;
    if (shown.length > 0) {
      const passes = shown.reduce((n, c) => n + c.passes, 0);
      const graded = shown.reduce((n, c) => n + c.graded, 0);
      const failing = shown.filter((c) => c.graded === 0 || c.passes < c.graded);
      const rate = graded === 0 ? 'no graded trial' : `pass rate ${((passes / graded) * 100).toFixed(1)}% (${passes} of ${graded} case-trials)`;
      lines.push(`the release on the added and edited cases: ${rate}; ${failing.length > 0 ? `failing: ${failing.map((c) => `${c.caseId} (${c.passes}/${c.graded})`).join(', ')}` : 'none failing'}`);
    }
  }
  if (config) {
    lines.push(`${config.file} changed (keys: ${listed(config.keys)}); this gate ran under the line's config; the change reaches the line when merged`);
  }
  if (notGated.length > 0) lines.push(`not gated: ${notGated.join(', ')}`);
  return lines;
}

const short = (sha: string): string => sha.slice(0, 10);

/**
 * The rubric or scorers changed: each side's grading version. The gate grades both sides under
 * the candidate's (the release's blueprint runs on the candidate's task), so a flip is a change
 * of agent; pass rates recorded under the release's grading are not comparable with these.
 */
function gradingLine(grading: GradingChange): string {
  const { release, candidate } = grading;
  return (
    `the rubric or scorers changed in this candidate (${grading.files.join(', ')}): the release was graded under grading ${release.digest} (${release.label}, ${short(release.commit)}), ` +
    `the candidate brings grading ${candidate.digest} (${candidate.label}); this gate graded both sides under the candidate's grading ${candidate.digest}, ` +
    `so its flips compare agents, not rubrics; pass rates recorded under ${release.digest} are not comparable with these`
  );
}

/** The sealed test split changed, let through with --reseal-test: the seal is taken again on the candidate's split. */
function testSplitLine(split: TestSplitChange): string {
  const what = split.after === null ? 'deletes (or moves)' : split.before === null ? 'adds' : 'changes';
  const now = split.after === null ? 'no test split' : `the test split ${short(split.after)}`;
  return `the change ${what} the sealed test split ${split.path} (was ${split.before === null ? 'absent' : short(split.before)}), gated because --reseal-test asked for it: the release records ${now} as its seal; test results of earlier releases are on another split`;
}
