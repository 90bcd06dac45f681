import { rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../domain/errors.ts';

export interface WorkspaceLock {
  release(): Promise<void>;
}

interface LockOwner {
  pid: number;
  command: string;
  since: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One agentdevel command at a time per workspace. The lock file names its owner; a lock whose
 * owner process is gone (killed, crashed) is stale and taken over, so a crash never wedges
 * the workspace.
 */
export async function acquireLock(stateDir: string, command: string, waitMs: number, now: () => Date): Promise<WorkspaceLock> {
  const file = path.join(stateDir, 'lock');
  const deadline = Date.now() + waitMs;
  for (;;) {
    const owner: LockOwner = { pid: process.pid, command, since: now().toISOString() };
    try {
      await writeFile(file, JSON.stringify(owner), { flag: 'wx' });
      const release = async () => {
        process.removeListener('exit', releaseSync);
        await rm(file, { force: true });
      };
      const releaseSync = () => {
        try {
          rmSync(file, { force: true });
        } catch {
          // Exiting anyway; a stale lock is taken over by the next command.
        }
      };
      process.once('exit', releaseSync);
      return { release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as LockOwner)
      .catch(() => null);
    if (!holder || !alive(holder.pid)) {
      await rm(file, { force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new AgentdevelError(
        'WORKSPACE_LOCKED',
        `this workspace is busy: \`agentdevel ${holder.command}\` (pid ${holder.pid}) has held it since ${holder.since}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
