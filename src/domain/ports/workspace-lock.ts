// One agentdevel command at a time per workspace. adapters/process/workspace-lock.ts implements
// it (a lock file naming its holder, taken over when the holder is gone).

export interface WorkspaceLock {
  release(): Promise<void>;
}

/**
 * Takes the workspace's lock for `command`, waiting up to `waitMs` for its holder; a busy
 * workspace past the wait is an error naming the holder.
 */
export type AcquireLock = (stateDir: string, command: string, waitMs: number, now: () => Date) => Promise<WorkspaceLock>;
