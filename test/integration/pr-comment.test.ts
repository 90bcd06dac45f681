// `agentdevel comment --pr N` against a local fake of GitHub's REST API (the Issues comments
// endpoints and GET /user): the first call creates one comment under a hidden marker, the second
// updates that same comment; comments that only look like ours (a quoted summary, a pasted marker
// by someone else) are left alone; one comment per --key; the token is sent only as a bearer
// header and never printed. The fake lets any token edit any comment, as GitHub lets a token
// with `pull-requests: write` do: only agentdevel's own check of the author keeps a reviewer's
// comment safe. Answers that are not GitHub's (HTML, a listing that is no list, a body that
// trickles) are exit 3 naming the call; a GITHUB_API_URL that is not http(s) is exit 2.
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain, tempDir } from '../helpers/workspace.ts';

interface Comment {
  id: number;
  body: string;
  html_url: string;
  user: { login: string; type: 'User' | 'Bot' };
}

/** A personal token (GET /user names its user) and an Actions installation token (GET /user is refused, as on GitHub). */
const TOKEN = 'ghs_fakeTokenForTheTest0123456789';
const ACTIONS_TOKEN = 'ghs_fakeActionsToken9876543210';
const USERS: Record<string, string> = { [TOKEN]: 'agentdevel-bot', [ACTIONS_TOKEN]: 'github-actions[bot]' };
const comments: Comment[] = [
  { id: 1, body: 'LGTM', html_url: 'https://github.test/o/r/pull/7#issuecomment-1', user: { login: 'reviewer', type: 'User' } },
  // A person quoting an old summary: it starts like one, and must never be edited.
  { id: 2, body: '### agentdevel gate: ❌ `feature` rejected\n\nwhy did this fail?', html_url: 'https://github.test/o/r/pull/7#issuecomment-2', user: { login: 'reviewer', type: 'User' } },
  // People who pasted our marker, for each key the tests use: only the token's own user's comment is ours.
  { id: 3, body: '<!-- agentdevel:gate key=unit -->\nI copied this', html_url: 'https://github.test/o/r/pull/7#issuecomment-3', user: { login: 'reviewer', type: 'User' } },
  { id: 4, body: '<!-- agentdevel:gate key=e2e -->\nand this', html_url: 'https://github.test/o/r/pull/7#issuecomment-4', user: { login: 'reviewer', type: 'User' } },
  { id: 5, body: '<!-- agentdevel:gate key=local -->\nand this', html_url: 'https://github.test/o/r/pull/7#issuecomment-5', user: { login: 'reviewer', type: 'User' } },
];
const seen: string[] = [];
let server: Server;
let apiUrl: string;

const read = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = '';
    req.on('data', (d) => (text += d)).on('end', () => resolve(text));
  });

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await read(req);
    seen.push(`${req.method} ${req.url}`);
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const login = USERS[token];
    if (!login) return reply(401, { message: 'Bad credentials' });
    if (req.headers['x-github-api-version'] !== '2022-11-28') return reply(400, { message: 'no API version' });
    const url = new URL(req.url ?? '/', 'http://x');
    // Answers that are not GitHub's, one repository each.
    if (url.pathname === '/repos/o/html/issues/7/comments') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html><body>Sign in to your proxy</body></html>');
    }
    if (url.pathname === '/repos/o/object/issues/7/comments') return reply(200, { comments: [] });
    if (url.pathname === '/repos/o/trickle/issues/7/comments') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const drip = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(drip));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/user') {
      return token === ACTIONS_TOKEN ? reply(403, { message: 'Resource not accessible by integration' }) : reply(200, { login });
    }
    if (req.method === 'GET' && url.pathname === '/repos/o/r/issues/7/comments') {
      const page = Number(url.searchParams.get('page') ?? 1);
      const per = Number(url.searchParams.get('per_page') ?? 30);
      return reply(200, comments.slice((page - 1) * per, page * per));
    }
    if (req.method === 'POST' && url.pathname === '/repos/o/r/issues/7/comments') {
      const id = 100 + comments.length;
      const comment: Comment = { id, body: (JSON.parse(body) as { body: string }).body, html_url: `https://github.test/o/r/pull/7#issuecomment-${id}`, user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' } };
      comments.push(comment);
      return reply(201, comment);
    }
    const patch = /^\/repos\/o\/r\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (req.method === 'PATCH' && patch) {
      const comment = comments.find((c) => c.id === Number(patch[1]));
      if (!comment) return reply(404, { message: 'Not Found' });
      comment.body = (JSON.parse(body) as { body: string }).body;
      return reply(200, comment);
    }
    return reply(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const comment = (args: string[], env: Record<string, string>) => runMain(['comment', ...args], { cwd: tempDir(), env });

const people = (): string[] => comments.filter((c) => c.user.login === 'reviewer').map((c) => c.body);
const peopleBefore = people();

describe('agentdevel comment', () => {
  it('creates one sticky comment under a hidden marker, then updates that one; comments that only look like it are left alone', async () => {
    const dir = tempDir('agentdevel-comment-');
    const file = path.join(dir, 'summary.md');
    const env = { GITHUB_API_URL: apiUrl, GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: 'o/r', PATH: process.env.PATH ?? '' };
    writeFileSync(file, '### agentdevel gate: ❌ `feature` (`1a2b3c4d5e`) rejected\n\nfirst\n');
    const first = await comment(['--pr', '7', '--key', 'unit', '--summary', file, '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ pr: 7, action: 'created' });
    writeFileSync(file, '### agentdevel gate: ✅ `feature` (`2b3c4d5e6f`) accepted (dry gate: nothing recorded)\n\nsecond\n');
    const second = await comment(['--pr', '7', '--key', 'unit', '--summary', file], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^pull request #7: comment updated/);
    const ours = comments.filter((c) => c.user.login === 'agentdevel-bot');
    expect(ours).toHaveLength(1);
    expect(ours[0]?.body).toBe('<!-- agentdevel:gate key=unit -->\n### agentdevel gate: ✅ `feature` (`2b3c4d5e6f`) accepted (dry gate: nothing recorded)\n\nsecond\n');
    // The reviewer's comments, one quoting a summary and one carrying the marker, are as they were.
    expect(people()).toEqual(peopleBefore);
    expect(seen.filter((s) => !s.startsWith('GET'))).toEqual(['POST /repos/o/r/issues/7/comments', `PATCH /repos/o/r/issues/comments/${ours[0]?.id}`]);
    expect(first.stdout + second.stdout + first.stderr + second.stderr).not.toContain(TOKEN);
  });

  it('keeps one comment per key (several gate jobs on one pull request); with an Actions token ours is the Actions bot\'s, never a reviewer\'s with the marker', async () => {
    const dir = tempDir('agentdevel-comment-');
    const file = path.join(dir, 'summary.md');
    writeFileSync(file, '### agentdevel gate: ✅ `feature` (`3c4d5e6f7a`) accepted\n');
    const env = { GITHUB_API_URL: apiUrl, GITHUB_TOKEN: ACTIONS_TOKEN, GITHUB_REPOSITORY: 'o/r', GITHUB_ACTIONS: 'true' };
    const from = seen.length;
    for (const key of ['e2e', 'e2e', 'nightly']) expect((await comment(['--pr', '7', '--key', key, '--summary', file], env)).code).toBe(0);
    const markers = comments.filter((c) => c.user.login === 'github-actions[bot]').map((c) => c.body.split('\n')[0]);
    expect(markers).toEqual(['<!-- agentdevel:gate key=e2e -->', '<!-- agentdevel:gate key=nightly -->']);
    expect(people()).toEqual(peopleBefore);
    const patched = seen.slice(from).filter((s) => s.startsWith('PATCH')).map((s) => Number(s.split('/').pop()));
    expect(patched).toHaveLength(1);
    expect(patched.every((id) => comments.find((c) => c.id === id)?.user.login === 'github-actions[bot]')).toBe(true);
    const badKey = await comment(['--pr', '7', '--key', 'x -->', '--summary', file], env);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(/--key: expected letters, digits/);
  });

  it('a token refused GET /user off Actions has no known author: it creates, and edits nothing', async () => {
    const dir = tempDir('agentdevel-comment-');
    const file = path.join(dir, 'summary.md');
    writeFileSync(file, '### agentdevel gate: ✅ `feature` (`4d5e6f7a8b`) accepted\n');
    const env = { GITHUB_API_URL: apiUrl, GITHUB_TOKEN: ACTIONS_TOKEN, GITHUB_REPOSITORY: 'o/r' };
    const before = seen.filter((s) => s.startsWith('PATCH')).length;
    for (let i = 0; i < 2; i += 1) {
      const posted = await comment(['--pr', '7', '--key', 'local', '--summary', file], env);
      expect(posted.code, posted.stderr).toBe(0);
      expect(posted.stdout).toMatch(/comment created/);
      expect(posted.stderr).toMatch(/did not say which user the token writes as/);
    }
    expect(seen.filter((s) => s.startsWith('PATCH')).length).toBe(before);
    expect(comments.filter((c) => c.body.startsWith('<!-- agentdevel:gate key=local -->')).map((c) => c.user.login)).toEqual(['reviewer', 'github-actions[bot]', 'github-actions[bot]']);
    expect(people()).toEqual(peopleBefore);
  });

  it('an answer that is not GitHub\'s (HTML, no list, a trickle past --timeout) is exit 3 in one line naming the call', async () => {
    const dir = tempDir('agentdevel-comment-');
    const file = path.join(dir, 'summary.md');
    writeFileSync(file, '### agentdevel gate: ✅ `x` (`1`) accepted\n');
    const env = { GITHUB_API_URL: apiUrl, GITHUB_TOKEN: TOKEN };
    const cases: Array<[string, RegExp]> = [
      ['o/html', /^error INFRA: GitHub API \(GET \/repos\/o\/html\/issues\/7\/comments\?per_page=100&page=1\) answered 200 with a body that is not JSON \(text\/html, \d+ bytes\)$/m],
      ['o/object', /^error INFRA: GitHub API \(GET \/repos\/o\/object\/issues\/7\/comments\?per_page=100&page=1\) answered 200 with a JSON object where a list of comments was expected$/m],
      ['o/trickle', /^error INFRA: GitHub API \(GET \/repos\/o\/trickle\/issues\/7\/comments\?per_page=100&page=1\) did not answer in full within 1 s$/m],
    ];
    for (const [repo, said] of cases) {
      const started = performance.now();
      const failed = await comment(['--pr', '7', '--repo', repo, '--summary', file, '--timeout', '1'], env);
      expect(failed.code, failed.stderr).toBe(3);
      expect(failed.stderr).toMatch(said);
      expect(failed.stderr).not.toMatch(/\n\s+at /);
      expect(performance.now() - started).toBeLessThan(5_000);
    }
  });

  it('a GITHUB_API_URL that is not http(s) is bad input naming the variable', async () => {
    const dir = tempDir('agentdevel-comment-');
    const file = path.join(dir, 'summary.md');
    writeFileSync(file, '### agentdevel gate: ✅ `x` (`1`) accepted\n');
    for (const url of ['ftp://127.0.0.1/api', 'api.github.com']) {
      const bad = await comment(['--pr', '7', '--summary', file], { GITHUB_API_URL: url, GITHUB_TOKEN: TOKEN, GITHUB_REPOSITORY: 'o/r' });
      expect(bad.code, bad.stderr).toBe(2);
      expect(bad.stderr).toMatch(/GITHUB_API_URL: expected an http\(s\) URL/);
    }
  });

  it('a refused token is a usage error naming what GitHub said, and no token prints', async () => {
    const dir = tempDir('agentdevel-comment-');
    const file = path.join(dir, 'summary.md');
    writeFileSync(file, '### agentdevel gate: ✅ `x` (`1`) accepted\n');
    const refused = await comment(['--pr', '7', '--summary', file], { GITHUB_API_URL: apiUrl, GITHUB_TOKEN: 'ghs_wrongTokenValue0123456789', GITHUB_REPOSITORY: 'o/r' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/GitHub API \(GET \/user\) answered 401 Bad credentials/);
    expect(refused.stderr).not.toContain('ghs_wrongTokenValue0123456789');
  });
});
