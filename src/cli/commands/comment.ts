import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { parseTimeout } from '../../app/command-options.ts';
import { postSummaryComment } from '../../app/pr-comment.ts';
import { COMMENT_KEY, SUMMARY_MARKER } from '../../stages/report/pr-summary.ts';
import type { Io } from '../io.ts';
import type { CommentOptions } from './comment.options.ts';

/** GitHub's limit on a comment's body, in characters. */
const MAX_BODY = 65_536;

/**
 * `agentdevel comment --pr N --summary FILE`: posts the gate's summary (what `gate --summary`
 * wrote) as one sticky comment on the pull request, or updates the one it posted before.
 */
export async function commentCommand(io: Io, options: CommentOptions): Promise<number> {
  const pr = Number(options.pr);
  if (!options.pr || !Number.isInteger(pr) || pr < 1) throw new AgentdevelError('USAGE', `--pr: expected a pull request number, got "${options.pr ?? ''}"`);
  const timeoutMs = parseTimeout(options.timeout, 30);
  if (options.key !== undefined && !COMMENT_KEY.test(options.key)) {
    throw new AgentdevelError('USAGE', `--key: expected letters, digits, ".", "_" or "-" (at most 100), got "${options.key}"`);
  }
  const file = path.resolve(options.C ? path.resolve(io.cwd, options.C) : io.cwd, options.summary ?? 'agentdevel-report/summary.md');
  const summary = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new AgentdevelError('USAGE', `--summary: cannot read ${file} (${error.code ?? error.message})`, { hint: 'Write it first with `agentdevel gate --summary FILE`.', cause: error });
  });
  if (!summary.startsWith(SUMMARY_MARKER)) throw new AgentdevelError('USAGE', `--summary: ${file} is not a summary written by \`agentdevel gate --summary\` (it must start with "${SUMMARY_MARKER}")`);
  const body = summary.length > MAX_BODY ? `${summary.slice(0, MAX_BODY - 200)}\n\n(cut here: the full summary is in the report artifact)\n` : summary;
  const result = await postSummaryComment(io.env, { pr, repo: options.repo, key: options.key ?? null, body, timeoutMs });
  if (options.json) io.stdout.write(`${JSON.stringify({ pr, ...result })}\n`);
  else {
    io.stdout.write(`pull request #${pr}: comment ${result.action}${result.url ? ` (${result.url})` : ''}\n`);
    if (result.author === null) io.stderr.write('GitHub did not say which user the token writes as, so no comment could be known as ours: a new one was created (an earlier one is left as it is).\n');
  }
  return 0;
}
