// One sticky comment on a pull request, through GitHub's REST API (the Issues comments
// endpoints; a pull request is an issue). Ours is the comment whose first line is our hidden
// marker AND whose author is the user the token writes as: the login GET /user names for a
// personal token, the `github-actions[bot]` Bot for the Actions token (which may not read
// /user). The marker alone never decides, since anyone can paste it: when the author cannot be
// established, a new comment is created and nothing is edited.
import { githubCall, malformed, type GithubTarget } from './api-call.ts';

export type { GithubTarget } from './api-call.ts';

/** The user a token writes comments as. */
export interface CommentAuthor {
  readonly login: string;
  /** GitHub's user type when it matters: the Actions bot is a `Bot`, which no person can be. */
  readonly type: 'Bot' | null;
}

/** The author of the comments the Actions GITHUB_TOKEN writes. */
export const ACTIONS_BOT: CommentAuthor = { login: 'github-actions[bot]', type: 'Bot' };

interface IssueComment {
  readonly id: number;
  readonly body: string;
  readonly htmlUrl: string | null;
  readonly login: string | null;
  readonly type: string | null;
}

const PAGE = 100;
/** The most comments read to find ours: 30 pages of 100. */
const MAX_PAGES = 30;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A comment as GitHub lists or returns it; anything else is a malformed answer of that call. */
function issueComment(value: unknown, method: string, route: string): IssueComment {
  if (!isObject(value) || typeof value.id !== 'number') throw malformed(method, route, `${JSON.stringify(value)?.slice(0, 60) ?? String(value)} where a comment (an object with a numeric id) was expected`);
  const user = isObject(value.user) ? value.user : null;
  return { id: value.id, body: text(value.body) ?? '', htmlUrl: text(value.html_url), login: text(user?.login), type: text(user?.type) };
}

/**
 * The user the token writes as: GET /user's login, or `actionsBot` when /user is refused (403,
 * as for the Actions installation token). Null when neither says: then nothing is ours.
 */
async function tokenAuthor(target: GithubTarget, actionsBot: CommentAuthor | null): Promise<CommentAuthor | null> {
  const answer = await githubCall(target, 'GET', '/user', undefined, [403, 404]);
  if (answer.status === 403) return actionsBot;
  if (answer.status === 404) return null;
  if (!isObject(answer.json)) throw malformed('GET', '/user', `${answer.status} with ${Array.isArray(answer.json) ? 'a list' : 'no object'} where the token's user was expected`);
  const login = text(answer.json.login);
  return login ? { login, type: null } : null;
}

const writtenBy = (author: CommentAuthor, comment: IssueComment): boolean => comment.login === author.login && (author.type === null || comment.type === author.type);

/**
 * Creates the sticky comment, or updates ours: the one whose first line is `marker` and whose
 * author is the token's. `actionsBot` is who a token refused GET /user writes as (the Actions
 * bot on GitHub Actions; null elsewhere, where such a token's author is unknown). `body` is
 * posted under the marker. `author` in the result is null when no comment could be ours.
 */
export async function upsertStickyComment(
  target: GithubTarget,
  marker: string,
  body: string,
  actionsBot: CommentAuthor | null,
): Promise<{ action: 'created' | 'updated'; id: number; url: string | null; author: string | null }> {
  const base = `/repos/${target.repository}/issues`;
  const author = await tokenAuthor(target, actionsBot);
  const marked = `${marker}\n${body}`;
  const isOurs = (c: IssueComment): boolean => author !== null && writtenBy(author, c) && c.body.replace(/\r\n/g, '\n').startsWith(`${marker}\n`);
  for (let page = 1; author !== null && page <= MAX_PAGES; page += 1) {
    const route = `${base}/${target.pr}/comments?per_page=${PAGE}&page=${page}`;
    const { status, json } = await githubCall(target, 'GET', route);
    if (!Array.isArray(json)) throw malformed('GET', route, `${status} with ${json === null ? 'an empty body' : `a JSON ${typeof json}`} where a list of comments was expected`);
    const ours = json.map((c) => issueComment(c, 'GET', route)).find(isOurs);
    if (ours) {
      const patch = `${base}/comments/${ours.id}`;
      const updated = issueComment((await githubCall(target, 'PATCH', patch, { body: marked })).json, 'PATCH', patch);
      return { action: 'updated', id: ours.id, url: updated.htmlUrl, author: author.login };
    }
    if (json.length < PAGE) break;
  }
  const post = `${base}/${target.pr}/comments`;
  const created = issueComment((await githubCall(target, 'POST', post, { body: marked })).json, 'POST', post);
  return { action: 'created', id: created.id, url: created.htmlUrl, author: author?.login ?? null };
}
