// Edge states a user reaches by accident, each answered with one clear message (never a stack or
// a raw git error): a damaged trace under `prompts`, a hand-made tag named like a release under
// `report`, `init` in a subfolder of a repository, and a remote that never answers under `sync`.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliWithin, exampleWorkspace, git } from '../helpers/workspace.ts';

const STACK = /internal error|\n\s+at /;

describe('edge states', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await exampleWorkspace();
    const run = cli(['run', '-C', dir]);
    expect(run.code, run.stderr).toBe(0);
  });

  it('prompts over a damaged trace says which trace is damaged and still shows the request', () => {
    const runDir = path.join(dir, 'traces', readdirSync(path.join(dir, 'traces')).find((f) => f.startsWith('run-')) as string);
    const segment = path.join(runDir, readdirSync(runDir)[0] as string);
    const original = readFileSync(segment);
    // Bytes torn out of the first trace's lines, and then the segment cut short.
    writeFileSync(segment, Buffer.concat([original.subarray(0, 40), Buffer.from('{{torn'), original.subarray(50, 400)]));
    try {
      const result = cli(['prompts', '--role', 'critic', '-C', dir]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(STACK);
      expect(result.stderr).toMatch(/^trace: empty, the recorded trace of case \S+ is damaged \(.*part-\d+\.jsonl.*\); `agentdevel run` records a new one$/m);
      expect(result.stdout).toMatch(/^## user message$/m);
    } finally {
      writeFileSync(segment, original);
    }
  });

  it('report on a tag named like a release that agentdevel did not make is refused with what it is', () => {
    git(dir, 'tag', 'support-agent/v9');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'a later commit');
    git(dir, 'tag', '-a', 'support-agent/v10', '-m', 'made by hand');
    try {
      for (const [args, tag] of [
        [['report', 'support-agent/v9'], 'support-agent/v9'],
        [['report', 'support-agent/v10'], 'support-agent/v10'],
        [['report'], 'support-agent/v10'],
      ] as const) {
        const result = cli([...args, '-C', dir]);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).not.toMatch(STACK);
        expect(result.stderr).not.toMatch(/GIT_FAILED|fatal:/);
        expect(result.stderr).toMatch(new RegExp(`^error USAGE: the tag ${tag} is named like a release of support-agent, but its commit \\([0-9a-f]{10}\\) recorded no gate decision`, 'm'));
        expect(result.stderr).toContain(`git tag -d ${tag}`);
      }
    } finally {
      git(dir, 'tag', '-d', 'support-agent/v9', 'support-agent/v10');
      git(dir, 'reset', '-q', '--hard', 'HEAD^');
    }
  });

  it('init in a subfolder of a repository is refused, and writes nothing', () => {
    const sub = path.join(dir, 'agents', 'new');
    mkdirSync(sub, { recursive: true });
    const result = cli(['init', '-C', sub]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error USAGE: init: .*agents\/new is a subfolder of the git repository .*; a workspace is the top of its repository; nothing was written$/m);
    expect(readdirSync(sub)).toEqual([]);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('a pending ref moved onto a blob is refused with what it points at (exit 2), not a raw git error', () => {
    const ref = 'refs/agentdevel/pending/support-agent/iter-001';
    const blob = git(dir, 'rev-parse', 'HEAD:agentdevel.config.json');
    git(dir, 'update-ref', ref, blob);
    try {
      const before = git(dir, 'for-each-ref');
      const result = cli(['approve', '1', '-C', dir]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).not.toMatch(/GIT_FAILED|fatal:|not a tree object/);
      expect(result.stderr).not.toMatch(STACK);
      expect(result.stderr).toMatch(/^error PENDING_NOT_GATED: refs\/agentdevel\/pending\/support-agent\/iter-001 points at a blob \([0-9a-f]{10}\), not at a commit: .*nothing was approved$/m);
      expect(result.stderr).toContain(`git update-ref -d ${ref}`);
      expect(git(dir, 'for-each-ref')).toBe(before);
    } finally {
      git(dir, 'update-ref', '-d', ref);
    }
  });

  it('demo --dir on a file says it is a file (and under a file, that), exit 2', () => {
    const file = path.join(dir, 'agentdevel.config.json');
    for (const [target, what] of [
      [file, 'is a file, not a folder'],
      [path.join(file, 'sub'), 'lies under a file, not a folder'],
    ] as const) {
      const result = cli(['demo', '--dir', target], { env: { ANTHROPIC_API_KEY: '' } });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^error DEMO_DIR_NOT_EMPTY: --dir: ${target.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} ${what}$`, 'm'));
      expect(result.stderr).not.toMatch(/is not empty/);
    }
  });

  describe('sync against a remote that never answers', () => {
    let server: Server;
    const sockets: Socket[] = [];
    beforeAll(async () => {
      // Accepts the connection, then says nothing, ever.
      server = createServer((socket) => sockets.push(socket));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => {
      for (const socket of sockets) socket.destroy();
      server.close();
    });

    it('gives up within its --timeout, as an infrastructure failure naming the bound', async () => {
      const port = (server.address() as { port: number }).port;
      git(dir, 'remote', 'add', 'silent', `git://127.0.0.1:${port}/line.git`);
      try {
        const result = await cliWithin(['sync', 'silent', '--fetch-only', '--timeout', '2', '-C', dir], 30_000);
        expect(result.overran).toBe(false);
        expect(result.ms).toBeLessThan(20_000);
        expect(result.code).toBe(3);
        expect(result.stderr).toMatch(/^error GIT_FAILED: git fetch silent failed: no answer within 2 s \(it was stopped; nothing was fetched\)$/m);
        expect(result.stderr).toMatch(/agentdevel sync --timeout SECONDS/);
        const bad = cli(['sync', 'silent', '--timeout', 'soon', '-C', dir]);
        expect(bad.code).toBe(2);
        expect(bad.stderr).toMatch(/^error USAGE: --timeout: expected a number of seconds above 0, got "soon"$/m);
      } finally {
        git(dir, 'remote', 'remove', 'silent');
      }
    });
  });
});
