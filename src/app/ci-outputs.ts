// The files CI reads after a run or a gate: the markdown summary and the JUnit XML. Shared by the
// CLI (`--summary`, `--junit`) and the library (`summary`, `junit`), so both resolve the paths the
// same way (against the folder the command ran in) and write the same bytes.
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GateOutcome } from '../pipeline/gate/submitted-candidate.ts';
import type { RunResult } from '../pipeline/run/execute-run.ts';
import type { Workspace } from '../pipeline/workspace/workspace.ts';
import { decisionHeadline, type DecisionHeadline } from '../stages/report/headline.ts';
import { renderJunit } from '../stages/report/junit.ts';
import { renderPrSummary } from '../stages/report/pr-summary.ts';

export interface CiOptions {
  /** Write a markdown summary here (besides $GITHUB_STEP_SUMMARY when that is set). */
  readonly summary?: string;
  /** Write a JUnit XML file here. */
  readonly junit?: string;
}

/** Where the command runs: relative paths are resolved against `cwd`; the environment says whether it runs on GitHub Actions. */
export interface CiPlace {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

async function writeInto(file: string, content: string, append: boolean): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await (append ? appendFile(file, content) : writeFile(file, content));
}

/**
 * The summary goes to --summary FILE and, on GitHub Actions, is appended to
 * $GITHUB_STEP_SUMMARY (the job page shows it); returns the files written.
 */
export async function writeSummary(place: CiPlace, options: CiOptions, markdown: string): Promise<string[]> {
  const written: string[] = [];
  if (options.summary) {
    const file = path.resolve(place.cwd, options.summary);
    await writeInto(file, markdown, false);
    written.push(file);
  }
  const step = place.env.GITHUB_STEP_SUMMARY;
  if (step) {
    await writeInto(step, `${markdown}\n`, true);
    written.push(step);
  }
  return written;
}

export async function writeJunit(place: CiPlace, options: CiOptions, render: () => string): Promise<string | null> {
  if (!options.junit) return null;
  const file = path.resolve(place.cwd, options.junit);
  // Rendered only when asked for: it reads every record of the run.
  await writeInto(file, render(), false);
  return file;
}

/** The page of this CI run that lists its artifacts, when running on GitHub Actions. */
export function artifactPage(env: CiPlace['env']): string | null {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: run } = env;
  return server && repository && run ? `${server}/${repository}/actions/runs/${run}#artifacts` : null;
}

/** A path relative to where the command ran when it lies below it (as CI uploads it), else absolute. */
export function shownPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/**
 * A file as a pull request's reader can find it: relative to the first of `bases` that holds it,
 * else its folder and name alone. Never the runner's absolute path, which means nothing on the
 * page (the report folder is what the artifact holds).
 */
export function summaryPath(bases: readonly string[], file: string): string {
  for (const base of bases) {
    const relative = path.relative(base, file);
    if (!relative.startsWith('..') && !path.isAbsolute(relative)) return relative;
  }
  return path.join(path.basename(path.dirname(file)), path.basename(file));
}

/** The headline of a gate's outcome: the decision and the reasons that caused it (the same words in every output). */
export function gateHeadline(result: GateOutcome): DecisionHeadline {
  return decisionHeadline(
    { outcome: result.outcome, release: result.tag, iteration: result.evidence.iteration, candidate: { ref: result.candidate }, gate: result.decision },
    result.evidence.cases,
  );
}

/**
 * What was gated, as a reviewer knows it: the branch, not `HEAD`. On a pull request GitHub names
 * the branch in GITHUB_HEAD_REF; elsewhere `HEAD` is the checked-out branch when there is one.
 */
async function candidateLabel(place: CiPlace, repo: Workspace['repo'], ref: string): Promise<string> {
  if (ref !== 'HEAD' && ref !== '@') return ref;
  return place.env.GITHUB_HEAD_REF || (await repo.currentBranch()) || ref;
}

/** The summary and JUnit files of a gate (each only when asked for); returns the files written. */
export async function writeGateOutputs(place: CiPlace, options: CiOptions, workspace: Workspace, result: GateOutcome): Promise<{ summary: string[]; junit: string | null }> {
  const headline = gateHeadline(result);
  const reportHtml = result.reportFiles.find((f) => f.endsWith('report.html')) ?? null;
  const summary = await writeSummary(
    place,
    options,
    renderPrSummary({
      candidate: { label: await candidateLabel(place, workspace.repo, result.candidate), commit: result.commit },
      baseline: result.evidence.baseline.label,
      headline,
      decision: result.decision,
      cases: result.evidence.cases,
      simulated: result.simulated,
      mockRoles: result.mockRoles,
      screenText: result.evidence.screenText ?? null,
      change: result.evidence.change ?? null,
      links: { report: reportHtml ? summaryPath([place.cwd, workspace.root], reportHtml) : null, artifactPage: artifactPage(place.env) },
    }),
  );
  const { candidateRunId } = result;
  const junit = await writeJunit(place, options, () =>
    renderJunit({
      suite: `agentdevel.${workspace.config.blueprint}`,
      records: candidateRunId ? workspace.store.eachRecord(candidateRunId) : [],
      gate: { candidate: result.candidate, decision: result.decision, headline, baselineCases: result.evidence.baselineCases, simulated: result.simulated },
    }),
  );
  return { summary, junit };
}

/** The JUnit file of a plain run (no gate): a failing case is a failure. */
export function writeRunJunit(place: CiPlace, options: CiOptions, workspace: Workspace, result: RunResult): Promise<string | null> {
  return writeJunit(place, options, () => renderJunit({ suite: `agentdevel.${workspace.config.blueprint}`, records: workspace.store.eachRecord(result.runId) }));
}
