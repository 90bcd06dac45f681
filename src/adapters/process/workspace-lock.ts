import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { systemClock } from '../../domain/ports/clock.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { nullWhenAbsent } from '../../domain/absent.ts';
import { parseStateDocument } from '../../domain/json-document.ts';
import { z } from '../../domain/zod.ts';
import type { WorkspaceLock } from '../../domain/ports/workspace-lock.ts';
import { atExit } from './exit-hooks.ts';
import { selfIdentity, stillRunning } from './liveness.ts';

export type { WorkspaceLock };

interface LockOwner {
  pid: number;
  /** When the holder process started (clock ticks since boot) and on which boot: a pid alone may be a zombie or reused. Null without /proc and in locks written before they were recorded. */
  startTime: string | null;
  boot: string | null;
  command: string;
  since: string;
}

const alive = (owner: LockOwner): boolean => stillRunning(owner);

const lockOwnerSchema = z.object({
  pid: z.number().int().positive(),
  startTime: z.string().nullable().default(null),
  boot: z.string().nullable().default(null),
  command: z.string(),
  since: z.string(),
});

/** The lock's owner; null when there is no lock file (it was just released); 'damaged' when it cannot be read as one. */
async function readOwner(file: string): Promise<LockOwner | 'damaged' | null> {
  const text = await readFile(file, 'utf8').catch(nullWhenAbsent);
  return text === null ? null : parseStateDocument(text, lockOwnerSchema);
}

const ignoreCode =
  (...codes: string[]) =>
  (error: unknown): false => {
    if (!codes.includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    return false;
  };

/**
 * One agentdevel command at a time per workspace. The lock file is written whole under another
 * name and then hard-linked into place, so it never exists half-written and only one process
 * can create it. The file names its holder by pid, start time and boot (src/adapters/process/liveness.ts):
 * a lock whose holder is gone (killed, crashed; a zombie not yet reaped; its pid now another
 * process's) is stale: it is renamed
 * away (atomic, so only one process takes it over) and the acquisition tries again.
 */
export async function acquireLock(stateDir: string, command: string, waitMs: number, now: () => Date): Promise<WorkspaceLock> {
  const file = path.join(stateDir, 'lock');
  const deadline = systemClock.now().getTime() + waitMs;
  for (;;) {
    const owner: LockOwner = { ...selfIdentity(), command, since: now().toISOString() };
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
      const cancel = atExit(releaseSync);
      return {
        release: async () => {
          cancel();
          await rm(file, { force: true });
        },
      };
    }
    const holder = await readOwner(file);
    if (holder === 'damaged') {
      throw new AgentdevelError('WORKSPACE_LOCKED', `the lock file ${file} is damaged (it does not name the command that holds it)`, {
        hint: `If no agentdevel command is running on this workspace, delete ${file} and run the command again.`,
      });
    }
    if (holder && !alive(holder)) {
      const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
      // ENOENT: another process took the stale lock away first.
      const moved = await rename(file, aside).then(() => true, ignoreCode('ENOENT'));
      if (moved) {
        const taken = await readOwner(aside);
        // Between reading and renaming, another process may have taken the stale lock over and
        // written its own: give that one back rather than break it (EEXIST: a third took it since).
        if (taken && taken !== 'damaged' && (taken.pid !== holder.pid || taken.startTime !== holder.startTime) && alive(taken)) await link(aside, file).catch(ignoreCode('EEXIST'));
        await rm(aside, { force: true });
      }
      continue;
    }
    if (systemClock.now().getTime() >= deadline) {
      const who = holder ? `\`agentdevel ${holder.command}\` (pid ${holder.pid}) has held it since ${holder.since}` : 'another agentdevel command holds it';
      throw new AgentdevelError('WORKSPACE_LOCKED', `this workspace is busy: ${who}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
