// One sticky comment on a pull request, through GitHub's REST API (the Issues comments
// endpoints; a pull request is an issue). Ours is the comment whose first line is our hidden
// marker (an HTML comment GitHub does not show), written by the token's own user when the API
// says who that is (GET /user; an Actions token may not ask, and then the marker alone decides):
// it is updated, else one is created. A person's comment that quotes a summary is never
// edited. Only `fetch` (Node's own); the token goes in the
// Authorization header and nowhere else. A network failure or a 5xx is infrastructure (exit 3);
// a refusal (401, 403, 404, 422) names what GitHub said and what to check.
import { AgentdevelError } from '../../domain/errors.ts';

export interface GithubTarget {
  /** GITHUB_API_URL (https://api.github.com, or a GitHub Enterprise server's /api/v3). */
  readonly apiUrl: string;
  /** owner/name */
  readonly repository: string;
  readonly token: string;
  readonly pr: number;
  /** Each request's bound. */
  readonly timeoutMs?: number;
}

interface IssueComment {
  readonly id: number;
  readonly body?: string;
  readonly html_url?: string;
  readonly user?: { readonly login?: string } | null;
}

const PAGE = 100;
/** The most comments read to find ours: 30 pages of 100. */
const MAX_PAGES = 30;

/** Answers a request with its JSON; `absentOn` lists statuses that mean "not there" (null) rather than a failure. */
async function call(target: GithubTarget, method: string, route: string, body?: unknown, absentOn: readonly number[] = []): Promise<unknown> {
  const url = `${target.apiUrl.replace(/\/+$/, '')}${route}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${target.token}`,
        'x-github-api-version': '2022-11-28',
        'user-agent': 'agentdevel',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(target.timeoutMs ?? 30_000),
    });
  } catch (error) {
    throw new AgentdevelError('INFRA', `GitHub API ${method} ${route}: ${(error as Error).message}`, { cause: error, hint: 'Check GITHUB_API_URL and the network, then run the command again.' });
  }
  const text = await response.text();
  if (absentOn.includes(response.status)) return null;
  if (!response.ok) {
    const said = (() => {
      try {
        return String((JSON.parse(text) as { message?: unknown }).message ?? text);
      } catch {
        return text;
      }
    })().slice(0, 300);
    if (response.status >= 500 || response.status === 429) throw new AgentdevelError('INFRA', `GitHub API ${method} ${route}: ${response.status} ${said}`);
    throw new AgentdevelError('USAGE', `GitHub API ${method} ${route}: ${response.status} ${said}`, {
      hint: 'Check GITHUB_TOKEN (on Actions: `permissions: pull-requests: write`), GITHUB_REPOSITORY and --pr.',
    });
  }
  return text === '' ? null : (JSON.parse(text) as unknown);
}

/**
 * The login of the token's user, or null when the API does not say: an installation token (the
 * Actions GITHUB_TOKEN) may not read /user (403).
 */
async function tokenUser(target: GithubTarget): Promise<string | null> {
  const user = (await call(target, 'GET', '/user', undefined, [403, 404])) as { login?: unknown } | null;
  return typeof user?.login === 'string' ? user.login : null;
}

/**
 * Creates the sticky comment, or updates ours: the one whose first line is `marker` (and, when
 * the API names the token's user, written by it). `body` is posted under the marker.
 */
export async function upsertStickyComment(target: GithubTarget, marker: string, body: string): Promise<{ action: 'created' | 'updated'; id: number; url: string | null }> {
  const base = `/repos/${target.repository}/issues`;
  const author = await tokenUser(target);
  const marked = `${marker}\n${body}`;
  const isOurs = (c: IssueComment): boolean => (c.body ?? '').replace(/\r\n/g, '\n').startsWith(`${marker}\n`) && (author === null || c.user?.login === author);
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const comments = (await call(target, 'GET', `${base}/${target.pr}/comments?per_page=${PAGE}&page=${page}`)) as IssueComment[];
    const ours = comments.find(isOurs);
    if (ours) {
      const updated = (await call(target, 'PATCH', `${base}/comments/${ours.id}`, { body: marked })) as IssueComment;
      return { action: 'updated', id: ours.id, url: updated?.html_url ?? null };
    }
    if (comments.length < PAGE) break;
  }
  const created = (await call(target, 'POST', `${base}/${target.pr}/comments`, { body: marked })) as IssueComment;
  return { action: 'created', id: created.id, url: created.html_url ?? null };
}
