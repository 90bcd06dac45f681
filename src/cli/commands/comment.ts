import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { upsertStickyComment } from '../../adapters/github/sticky-comment.ts';
import { COMMENT_KEY, commentMarker, SUMMARY_MARKER } from '../../stages/report/pr-summary.ts';
import type { CommonOptions, Io } from '../io.ts';

export interface CommentOptions extends CommonOptions {
  readonly pr?: string;
  readonly summary?: string;
  readonly repo?: string;
  /** Tells apart the comments of several gate jobs on one pull request. */
  readonly key?: string;
}

/** GitHub's limit on a comment's body, in characters. */
const MAX_BODY = 65_536;

/**
 * `agentdevel comment --pr N --summary FILE`: posts the gate's summary (what `gate --summary`
 * wrote) as one sticky comment on the pull request, or updates the one it posted before.
 */
export async function commentCommand(io: Io, options: CommentOptions): Promise<number> {
  const pr = Number(options.pr);
  if (!options.pr || !Number.isInteger(pr) || pr < 1) throw new AgentdevelError('USAGE', `--pr: expected a pull request number, got "${options.pr ?? ''}"`);
  if (options.key !== undefined && !COMMENT_KEY.test(options.key)) {
    throw new AgentdevelError('USAGE', `--key: expected letters, digits, ".", "_" or "-" (at most 100), got "${options.key}"`);
  }
  const file = path.resolve(options.C ? path.resolve(io.cwd, options.C) : io.cwd, options.summary ?? 'agentdevel-report/summary.md');
  const summary = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new AgentdevelError('USAGE', `--summary: cannot read ${file} (${error.code ?? error.message})`, { hint: 'Write it first with `agentdevel gate --summary FILE`.', cause: error });
  });
  if (!summary.startsWith(SUMMARY_MARKER)) throw new AgentdevelError('USAGE', `--summary: ${file} is not a summary written by \`agentdevel gate --summary\` (it must start with "${SUMMARY_MARKER}")`);
  const repository = options.repo ?? io.env.GITHUB_REPOSITORY;
  if (!repository || !/^[\w.-]+\/[\w.-]+$/.test(repository)) throw new AgentdevelError('USAGE', `the repository: expected owner/name from --repo or GITHUB_REPOSITORY, got "${repository ?? ''}"`);
  const token = io.env.GITHUB_TOKEN;
  if (!token) throw new AgentdevelError('USAGE', 'GITHUB_TOKEN is not set: the comment needs a token that may write pull request comments');
  const body = summary.length > MAX_BODY ? `${summary.slice(0, MAX_BODY - 200)}\n\n(cut here: the full summary is in the report artifact)\n` : summary;
  const result = await upsertStickyComment({ apiUrl: io.env.GITHUB_API_URL || 'https://api.github.com', repository, token, pr }, commentMarker(options.key ?? null), body);
  if (options.json) io.stdout.write(`${JSON.stringify({ pr, ...result })}\n`);
  else io.stdout.write(`pull request #${pr}: comment ${result.action}${result.url ? ` (${result.url})` : ''}\n`);
  return 0;
}
