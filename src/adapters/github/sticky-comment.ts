// One sticky comment on a pull request, through GitHub's REST API (the Issues comments
// endpoints; a pull request is an issue): the first comment that starts with the summary's
// marker is updated, else one is created. Only `fetch` (Node's own); the token goes in the
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
}

const PAGE = 100;
/** The most comments read to find ours: 30 pages of 100. */
const MAX_PAGES = 30;

async function call(target: GithubTarget, method: string, route: string, body?: unknown): Promise<unknown> {
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

/** Creates the sticky comment, or updates it when one starting with `marker` is there. */
export async function upsertStickyComment(target: GithubTarget, marker: string, body: string): Promise<{ action: 'created' | 'updated'; id: number; url: string | null }> {
  const base = `/repos/${target.repository}/issues`;
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const comments = (await call(target, 'GET', `${base}/${target.pr}/comments?per_page=${PAGE}&page=${page}`)) as IssueComment[];
    const ours = comments.find((c) => (c.body ?? '').startsWith(marker));
    if (ours) {
      const updated = (await call(target, 'PATCH', `${base}/comments/${ours.id}`, { body })) as IssueComment;
      return { action: 'updated', id: ours.id, url: updated?.html_url ?? null };
    }
    if (comments.length < PAGE) break;
  }
  const created = (await call(target, 'POST', `${base}/${target.pr}/comments`, { body })) as IssueComment;
  return { action: 'created', id: created.id, url: created.html_url ?? null };
}
