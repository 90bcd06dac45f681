// `agentdevel comment`: the gate's summary as one sticky comment on a pull request. Wires the
// GitHub adapter to the repository, token and API URL of the environment (as GitHub Actions sets
// them) and to the summary's marker, which finds the comment posted before.
import { AgentdevelError } from '../domain/errors.ts';
import { upsertStickyComment } from '../adapters/github/sticky-comment.ts';
import { commentMarker } from '../stages/report/pr-summary.ts';

export interface SummaryComment {
  readonly pr: number;
  /** owner/name; GITHUB_REPOSITORY when absent. */
  readonly repo: string | undefined;
  /** Tells apart the comments of several gate jobs on one pull request. */
  readonly key: string | null;
  readonly body: string;
}

/** Posts the summary as the pull request's sticky comment, or updates the one posted before. */
export async function postSummaryComment(env: Readonly<Record<string, string | undefined>>, comment: SummaryComment): Promise<{ action: 'created' | 'updated'; id: number; url: string | null }> {
  const repository = comment.repo ?? env.GITHUB_REPOSITORY;
  if (!repository || !/^[\w.-]+\/[\w.-]+$/.test(repository)) throw new AgentdevelError('USAGE', `the repository: expected owner/name from --repo or GITHUB_REPOSITORY, got "${repository ?? ''}"`);
  const token = env.GITHUB_TOKEN;
  if (!token) throw new AgentdevelError('USAGE', 'GITHUB_TOKEN is not set: the comment needs a token that may write pull request comments');
  return upsertStickyComment({ apiUrl: env.GITHUB_API_URL || 'https://api.github.com', repository, token, pr: comment.pr }, commentMarker(comment.key), comment.body);
}
