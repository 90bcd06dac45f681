import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
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

async function readOwner(file: string): Promise<LockOwner | null> {
  return readFile(file, 'utf8')
    .then((text) => JSON.parse(text) as LockOwner)
    .catch(() => null);
}

/**
 * One agentdevel command at a time per workspace. The lock file is written whole under another
 * name and then hard-linked into place, so it never exists half-written and only one process
 * can create it. A lock whose owner process is gone (killed, crashed) is stale: it is renamed
 * away (atomic, so only one process takes it over) and the acquisition tries again.
 */
export async function acquireLock(stateDir: string, command: string, waitMs: number, now: () => Date): Promise<WorkspaceLock> {
  const file = path.join(stateDir, 'lock');
  const deadline = Date.now() + waitMs;
  for (;;) {
    const owner: LockOwner = { pid: process.pid, command, since: now().toISOString() };
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(draft, JSON.stringify(owner));
    let taken = false;
    try {
      await link(draft, file);
      taken = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(draft, { force: true });
    }
    if (taken) {
      const releaseSync = () => {
        try {
          rmSync(file, { force: true });
        } catch {
          // Exiting anyway; a stale lock is taken over by the next command.
        }
      };
      process.once('exit', releaseSync);
      return {
        release: async () => {
          process.removeListener('exit', releaseSync);
          await rm(file, { force: true });
        },
      };
    }
    const holder = await readOwner(file);
    if (holder && !alive(holder.pid)) {
      const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
      const moved = await rename(file, aside).then(
        () => true,
        () => false,
      );
      if (moved) {
        const taken = await readOwner(aside);
        // Between reading and renaming, another process may have taken the stale lock over and
        // written its own: give that one back rather than break it.
        if (taken && taken.pid !== holder.pid && alive(taken.pid)) await link(aside, file).catch(() => undefined);
        await rm(aside, { force: true });
      }
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder ? `\`agentdevel ${holder.command}\` (pid ${holder.pid}) has held it since ${holder.since}` : 'another agentdevel command holds it';
      throw new AgentdevelError('WORKSPACE_LOCKED', `this workspace is busy: ${who}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
