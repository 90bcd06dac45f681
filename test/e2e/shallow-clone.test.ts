import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, exampleWorkspace, git, lineState } from '../helpers/workspace.ts';

/** The tip's files with their blob ids ("path blob"), to compare a line before and after a command. */
function treeAt(dir: string, rev: string): Map<string, string> {
  const rows = git(dir, 'ls-tree', '-r', '--format=%(path) %(objectname)', rev).split('\n');
  return new Map(rows.map((row) => row.split(' ') as [string, string]));
}

describe('a clone of the workspace', () => {
  it('refuses to iterate in a shallow clone (exit 2, nothing written), and once unshallowed keeps every file the line holds', async () => {
    const origin = await exampleWorkspace();
    expect(cli(['iterate', '--max-iterations', '2', '-C', origin]).code).toBe(0);
    const clone = path.join(path.dirname(origin), 'clone');
    // file://, so --depth applies (a plain path would copy the objects whole).
    git(path.dirname(origin), 'clone', '--quiet', '--depth', '1', `file://${origin}`, clone);
    const before = lineState(clone);

    const refused = cli(['iterate', '--max-iterations', '1', '-C', clone]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/HISTORY_SHALLOW/);
    expect(refused.stderr).toMatch(/shallow clone/);
    expect(refused.stderr).toMatch(/git fetch --unshallow/);
    expect(lineState(clone)).toBe(before);

    // With the history (but still no refs/agentdevel/: a plain clone has none until `sync`).
    git(clone, 'fetch', '--quiet', '--unshallow');
    const tip = git(clone, 'rev-parse', 'HEAD');
    const held = treeAt(clone, tip);
    // Two iterations: a number used again (the audit refs are missing) would write over iter-002's files.
    const ran = cli(['iterate', '--max-iterations', '2', '-C', clone]);
    expect(ran.stderr).not.toMatch(/internal error/);
    expect(ran.code).toBe(0);
    const now = treeAt(clone, 'HEAD');
    // Only the blueprint and the line's running documents change; no earlier iteration's or release's file is dropped or rewritten.
    const rewritable = (file: string) => file.startsWith('blueprints/') || /^releases\/support-agent\/(CHANGELOG\.md|index\.html)$/.test(file);
    const lost = [...held].filter(([file, blob]) => now.get(file) !== blob && !rewritable(file)).map(([file]) => file);
    expect(lost).toEqual([]);
    expect(held.has('diagnostics/README.md')).toBe(true);
    for (const heading of git(clone, 'show', `${tip}:releases/support-agent/CHANGELOG.md`).split('\n').filter((l) => l.startsWith('## '))) {
      expect(git(clone, 'show', 'HEAD:releases/support-agent/CHANGELOG.md')).toContain(heading);
    }
  }, 120_000);
});
