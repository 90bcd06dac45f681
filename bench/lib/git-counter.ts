// Counts the git processes a command starts: a folder whose `git` logs its arguments and runs
// the real git, put first on the command's PATH (agentdevel passes PATH on to git).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface GitCounter {
  /** The PATH to run the command with. */
  readonly path: string;
  /** How many git processes started since the last call. */
  take(): number;
}

export function countingGit(): GitCounter {
  const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  if (realGit === '') throw new Error('no git on PATH');
  const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-git-'));
  const log = path.join(dir, 'invocations.log');
  writeFileSync(path.join(dir, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
  chmodSync(path.join(dir, 'git'), 0o755);
  return {
    path: `${dir}${path.delimiter}${process.env.PATH ?? ''}`,
    take: () => {
      const count = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((line) => line !== '').length : 0;
      writeFileSync(log, '');
      return count;
    },
  };
}
