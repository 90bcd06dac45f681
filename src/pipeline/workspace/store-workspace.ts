import { access } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE, loadConfig } from '../../config/load.ts';
import { configSchema } from '../../config/schema.ts';
import type { Clock } from '../../domain/ports/clock.ts';
import type { ComparePolicy } from '../../stages/gate/compare.ts';
import type { OpenRecordStore, RecordStore } from '../../domain/ports/record-store.ts';
import type { AcquireLock, WorkspaceLock } from '../../domain/ports/workspace-lock.ts';
import { STATE_DIR } from '../../domain/state-dir.ts';

/**
 * Just the store of a folder, for commands that work on recorded runs (import, compare): no
 * git repository or blueprint needed. The gate policy comes from agentdevel.config.json when
 * the folder has one, else from the defaults.
 */
export interface StoreWorkspace {
  readonly root: string;
  readonly tracesRoot: string;
  readonly store: RecordStore;
  readonly policy: ComparePolicy;
  close(): Promise<void>;
}

/** Opens the store of `dir` through these adapters (app/workspace.ts's openStoreWorkspace gives the real ones). */
export async function assembleStoreWorkspace(
  dir: string,
  clock: Clock,
  lockFor: string | null,
  adapters: { readonly openStore: OpenRecordStore; readonly acquireLock: AcquireLock },
): Promise<StoreWorkspace> {
  const hasConfig = await access(path.join(dir, CONFIG_FILE)).then(
    () => true,
    () => false,
  );
  const gate = hasConfig ? (await loadConfig(dir)).gate : configSchema.parse({ blueprint: 'none', task: 'none' }).gate;
  const store = adapters.openStore(dir, clock);
  let lock: WorkspaceLock | null = null;
  try {
    if (lockFor) lock = await adapters.acquireLock(path.join(dir, STATE_DIR), lockFor, 0, () => clock.now());
  } catch (error) {
    store.close();
    throw error;
  }
  return {
    root: dir,
    tracesRoot: path.join(dir, 'traces'),
    store,
    policy: { ...gate },
    close: async () => {
      store.close();
      await lock?.release();
    },
  };
}
