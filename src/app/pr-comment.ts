// `agentdevel comment`: the gate's summary as one sticky comment on a pull request. Wires the
// GitHub adapter to the repository, token and API URL of the environment (as GitHub Actions sets
// them) and to the summary's marker, which, with the token's author, finds the comment posted before.
import { AgentdevelError } from '../domain/errors.ts';
import { ACTIONS_BOT, upsertStickyComment } from '../adapters/github/sticky-comment.ts';
import { commentMarker } from '../stages/report/pr-summary.ts';

export interface SummaryComment {
  readonly pr: number;
  /** owner/name; GITHUB_REPOSITORY when absent. */
  readonly repo: string | undefined;
  /** Tells apart the comments of several gate jobs on one pull request. */
  readonly key: string | null;
  readonly body: string;
  /** The bound of each request to the API, answer included. */
  readonly timeoutMs: number;
}

/** GITHUB_API_URL, checked: an http(s) URL, else bad input naming the variable (never its value's credentials). */
function apiUrlOf(value: string | undefined): string {
  if (!value) return 'https://api.github.com';
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Not a URL at all: said below.
  }
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return value;
  throw new AgentdevelError('USAGE', `GITHUB_API_URL: expected an http(s) URL such as https://api.github.com, got ${url ? `one with the scheme "${url.protocol}"` : 'a value that is not a URL'}`, {
    hint: 'Set GITHUB_API_URL to the REST API of GitHub (https://api.github.com) or of your GitHub Enterprise server (https://HOST/api/v3), or unset it.',
  });
}

/** Posts the summary as the pull request's sticky comment, or updates the one posted before. */
export async function postSummaryComment(env: Readonly<Record<string, string | undefined>>, comment: SummaryComment): Promise<{ action: 'created' | 'updated'; id: number; url: string | null; author: string | null }> {
  const apiUrl = apiUrlOf(env.GITHUB_API_URL);
  const repository = comment.repo ?? env.GITHUB_REPOSITORY;
  if (!repository || !/^[\w.-]+\/[\w.-]+$/.test(repository)) throw new AgentdevelError('USAGE', `the repository: expected owner/name from --repo or GITHUB_REPOSITORY, got "${repository ?? ''}"`);
  const token = env.GITHUB_TOKEN;
  if (!token) throw new AgentdevelError('USAGE', 'GITHUB_TOKEN is not set: the comment needs a token that may write pull request comments');
  // A token refused GET /user is the Actions installation token only on Actions (which sets
  // GITHUB_ACTIONS); elsewhere such a token's author is unknown, and nothing is edited.
  const actionsBot = env.GITHUB_ACTIONS === 'true' ? ACTIONS_BOT : null;
  return upsertStickyComment({ apiUrl, repository, token, pr: comment.pr, timeoutMs: comment.timeoutMs }, commentMarker(comment.key), comment.body, actionsBot);
}
