// Bad input says where it is (the option, the key, the document and its version), and a remote's
// refusal keeps the remote's own reason: each through the CLI, on real git.
import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scaffoldExample } from '../../src/app/example.ts';
import { cli, exampleWorkspace, git, lineState, tempDir } from '../helpers/workspace.ts';

describe('bad input names where it is', () => {
  it('refuses a --line name git would refuse as bad usage naming --line (exit 2), before anything is written', async () => {
    const dir = await exampleWorkspace();
    const before = lineState(dir);
    for (const name of ['bad..name', 'x.lock', 'trailing.', 'a b']) {
      const refused = cli(['iterate', '--max-iterations', '1', '--line', name, '-C', dir]);
      expect(refused.stderr).not.toMatch(/GIT_FAILED/);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`--line: "${name}" is not a scratch line name`);
    }
    expect(lineState(dir)).toBe(before);
  }, 60_000);

  it('names the labels document, its version and the versions this agentdevel reads, for a future labels.json', async () => {
    const dir = await exampleWorkspace();
    // A labels document as a newer agentdevel would write it, on its ref, as plain git would put it there.
    const blob = gitWithInput(dir, ['hash-object', '-w', '--stdin'], '{ "schema": "agentdevel/labels@3", "aliases": [], "scopes": {} }\n');
    const tree = gitWithInput(dir, ['mktree'], `100644 blob ${blob}\tlabels.json\n`);
    git(dir, 'update-ref', 'refs/agentdevel/labels/support-agent', git(dir, 'commit-tree', tree, '-m', 'labels from a newer agentdevel'));
    const read = cli(['labels', '-C', dir]);
    expect(read.code).toBe(2);
    expect(read.stderr).not.toMatch(/Invalid input/);
    expect(read.stderr).toContain('refs/agentdevel/labels/support-agent:labels.json');
    expect(read.stderr).toContain('schema "agentdevel/labels@3"');
    expect(read.stderr).toMatch(/reads agentdevel\/labels@2 and agentdevel\/labels@1/);
  }, 60_000);

  it("names a crew member's missing prompt by the member's own key", async () => {
    const dir = path.join(tempDir(), 'crew');
    await scaffoldExample(dir, 'orders-crew');
    rmSync(path.join(dir, 'blueprints/orders-crew/members/refunds.hbs'));
    git(dir, 'commit', '-qam', 'drop the refunds prompt');
    const run = cli(['run', '-C', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('blueprints/orders-crew/blueprint.json: members[1].prompt (member "refunds"): "members/refunds.hbs" is not a .hbs file of the blueprint');
  }, 60_000);
});

describe('a remote that refuses a push', () => {
  it("keeps the remote hook's own reason in sync's error", async () => {
    const dir = await exampleWorkspace();
    const remote = path.join(tempDir(), 'remote.git');
    git(path.dirname(remote), 'init', '--quiet', '--bare', remote);
    const hook = path.join(remote, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "refused by policy: releases need a ticket (POLICY-42)" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    git(dir, 'remote', 'add', 'guarded', remote);
    const synced = cli(['sync', 'guarded', '-C', dir]);
    expect(synced.code).toBe(3);
    expect(synced.stderr).toContain('remote: refused by policy: releases need a ticket (POLICY-42)');
    expect(synced.stderr).toMatch(/pre-receive hook declined/);
  }, 60_000);
});

/** Git plumbing that reads its standard input. */
function gitWithInput(dir: string, args: string[], input: string): string {
  const result = spawnSync('git', args, { cwd: dir, input, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
}
