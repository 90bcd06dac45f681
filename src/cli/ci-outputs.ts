import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Io } from '../app/compose.ts';

export interface CiOptions {
  /** Write a markdown summary here (besides $GITHUB_STEP_SUMMARY when that is set). */
  readonly summary?: string;
  /** Write a JUnit XML file here. */
  readonly junit?: string;
}

async function writeInto(file: string, content: string, append: boolean): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await (append ? appendFile(file, content) : writeFile(file, content));
}

/**
 * The summary goes to --summary FILE and, on GitHub Actions, is appended to
 * $GITHUB_STEP_SUMMARY (the job page shows it); returns the files written.
 */
export async function writeSummary(io: Io, options: CiOptions, markdown: string): Promise<string[]> {
  const written: string[] = [];
  if (options.summary) {
    const file = path.resolve(io.cwd, options.summary);
    await writeInto(file, markdown, false);
    written.push(file);
  }
  const step = io.env.GITHUB_STEP_SUMMARY;
  if (step) {
    await writeInto(step, `${markdown}\n`, true);
    written.push(step);
  }
  return written;
}

export async function writeJunit(io: Io, options: CiOptions, render: () => string): Promise<string | null> {
  if (!options.junit) return null;
  const file = path.resolve(io.cwd, options.junit);
  // Rendered only when asked for: it reads every record of the run.
  await writeInto(file, render(), false);
  return file;
}

/** The page of this CI run that lists its artifacts, when running on GitHub Actions. */
export function artifactPage(env: Io['env']): string | null {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: run } = env;
  return server && repository && run ? `${server}/${repository}/actions/runs/${run}#artifacts` : null;
}
