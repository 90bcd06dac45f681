// What a person's change touches beyond the blueprint, and what the gate made of each kind of
// path, in the words every output of a decision uses (the CLI, the PR summary, report.md,
// report.html). Plain text: each output escapes it for its own format.
import type { HumanChange } from '../../domain/human-change.ts';

const listed = (ids: readonly string[]): string => (ids.length === 0 ? 'none' : ids.join(', '));

/** One line per fact, the most telling first; empty when the change is the blueprint alone. */
export function changeLines(change: HumanChange | null): string[] {
  if (!change) return [];
  const lines: string[] = [];
  const { task, config, notGated } = change;
  if (!change.blueprint) {
    lines.push(task ? "no blueprint change: the release measured on the candidate's task" : 'no blueprint change and no task change: the candidate runs the release as it is');
  }
  if (task) {
    const files = task.paths.filter((p) => p !== `${task.folder}train.jsonl`).map((p) => p.slice(task.folder.length));
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
