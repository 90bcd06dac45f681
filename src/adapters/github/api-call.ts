// One call to GitHub's REST API, with a bound on its time and on the size of its answer. Only
// `fetch` (Node's own); the token goes in the Authorization header and nowhere else. Every way
// the call can end is an AgentdevelError naming the call: a network failure, a 5xx, a 429, an
// answer that trickles past the bound, is too large or is not JSON is infrastructure (exit 3); a
// refusal (401, 403, 404, 422) names what GitHub said and what to check (exit 2).
import { AgentdevelError } from '../../domain/errors.ts';

export interface GithubTarget {
  /** GITHUB_API_URL (https://api.github.com, or a GitHub Enterprise server's /api/v3). */
  readonly apiUrl: string;
  /** owner/name */
  readonly repository: string;
  readonly token: string;
  readonly pr: number;
  /** Each request's bound, from sending it to the last byte of its answer. */
  readonly timeoutMs: number;
}

/** The most an answer may weigh: a page of 100 comments at GitHub's limit of 65,536 characters each, in UTF-8, with room. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** An answer: its status and its body as parsed JSON (null when empty or absent). */
export interface GithubAnswer {
  readonly status: number;
  readonly json: unknown;
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;

/** The call as messages name it: the method and the route, without the host. */
const callName = (method: string, route: string): string => `GitHub API (${method} ${route})`;

/** Thrown for an answer whose form is not GitHub's: infrastructure, named by the call. */
export function malformed(method: string, route: string, what: string): AgentdevelError {
  return new AgentdevelError('INFRA', `${callName(method, route)} answered ${what}`, {
    hint: 'Check that GITHUB_API_URL is a GitHub REST API (https://api.github.com, or a GitHub Enterprise server\'s /api/v3) and that no proxy rewrites its answers.',
  });
}

/** Reads a body to its end, refusing more than MAX_ANSWER_BYTES; the request's signal bounds the time. */
async function boundedText(response: Response, method: string, route: string): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw malformed(method, route, `more than ${MAX_ANSWER_BYTES / 1024 / 1024} MB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** What GitHub said in a refusal: its `message`, else the start of the body, on one line. */
function refusalText(text: string): string {
  let said = text;
  try {
    const message = (JSON.parse(text) as { message?: unknown } | null)?.message;
    if (typeof message === 'string') said = message;
  } catch {
    // Not JSON: the body itself is what was said.
  }
  // One line, and no terminal control sequences from a server's text.
  return said.replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').trim().slice(0, 300);
}

/**
 * Sends one request and reads its whole answer within `target.timeoutMs`. `absentOn` lists
 * statuses that mean "not there" rather than a failure: they are returned, not thrown.
 */
export async function githubCall(target: GithubTarget, method: string, route: string, body?: unknown, absentOn: readonly number[] = []): Promise<GithubAnswer> {
  const url = `${target.apiUrl.replace(/\/+$/, '')}${route}`;
  // One signal for the request and the reading of its body, so a trickling answer is cut too.
  const signal = AbortSignal.timeout(target.timeoutMs);
  let response: Response;
  let text: string;
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
      signal,
    });
    text = await boundedText(response, method, route);
  } catch (error) {
    if (error instanceof AgentdevelError) throw error;
    const message = signal.aborted ? `did not answer in full within ${seconds(target.timeoutMs)}` : `could not be reached: ${(error as Error).message}`;
    throw new AgentdevelError('INFRA', `${callName(method, route)} ${message}`, { cause: error, hint: 'Check GITHUB_API_URL and the network (or allow longer with --timeout SECONDS), then run the command again.' });
  }
  if (absentOn.includes(response.status)) return { status: response.status, json: null };
  if (!response.ok) {
    const said = `${callName(method, route)} answered ${response.status} ${refusalText(text)}`;
    if (response.status >= 500 || response.status === 429) throw new AgentdevelError('INFRA', said);
    throw new AgentdevelError('USAGE', said, { hint: 'Check GITHUB_TOKEN (on Actions: `permissions: pull-requests: write`), GITHUB_REPOSITORY and --pr.' });
  }
  if (text.trim() === '') return { status: response.status, json: null };
  try {
    return { status: response.status, json: JSON.parse(text) as unknown };
  } catch {
    const type = response.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
    throw malformed(method, route, `${response.status} with a body that is not JSON (${type}, ${Buffer.byteLength(text)} bytes)`);
  }
}
