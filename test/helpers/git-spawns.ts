// Counts the git processes a command starts: a folder whose `git` writes its arguments to a log
// and runs the real git, put first on the command's PATH (agentdevel passes PATH on to git).
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { tempDir } from './workspace.ts';

export interface GitCounter {
  /** The PATH to run the command with. */
  readonly path: string;
  /** The git invocations since the last call (their arguments, one per process). */
  take(): string[];
}

export function countingGit(): GitCounter {
  const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  if (realGit === '') throw new Error('no git on PATH');
  const dir = tempDir('agentdevel-git-counter-');
  const log = path.join(dir, 'invocations.log');
  const script = path.join(dir, 'git');
  // git sees only PATH and a few variables of its own: the log's place is written into the script.
  writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
  chmodSync(script, 0o755);
  return {
    path: `${dir}${path.delimiter}${process.env.PATH ?? ''}`,
    take: () => {
      if (!existsSync(log)) return [];
      const lines = readFileSync(log, 'utf8').split('\n').filter((line) => line !== '');
      writeFileSync(log, '');
      return lines;
    },
  };
}
