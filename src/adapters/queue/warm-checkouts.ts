// A worker's checkouts of versions, kept warm: one folder per snapshot tree under the cache,
// checked out from git once and reused by every job and every run of that version. The folder
// is this worker process's own (the tree and a random name of the process): workers of one
// machine share the cache folder, and one must never check a folder out afresh while another's
// agents run in it. An agent runs
// in its blueprint's folder and may write there, as it may in a local run: between the jobs of
// one run that stays as it is, but a job that comes to a checkout with none in flight on it
// (the next run, most often) first has it checked, in this process (tree-id.ts), against what its
// checkout wrote (the snapshot's tree, unless .gitattributes had git convert files as it wrote
// them), and a checkout that differs is made afresh, so one run's writes never reach the next. At most
// KEPT_CHECKOUTS are kept by this worker, the least recently used idle one going first, and the
// cache folder (maybe shared by the workers of a machine) keeps the KEPT_ON_DISK most recent,
// never removing one that a worker touched within IN_USE_MS.
import { randomBytes } from 'node:crypto';
import { readdir, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { systemClock } from '../../domain/ports/clock.ts';
import { splitNames } from '../../domain/case.ts';
import { checkoutFromRemote, checkoutSnapshot } from '../git/snapshot.ts';
import { holdsTree, treeIdOf } from '../git/tree-id.ts';
import { evictIdle } from './idle-eviction.ts';
import type { JobVersion } from './job.ts';

const KEPT_CHECKOUTS = 4;
/** A bundle up to this size is read from Redis before the remote is asked for the commit. */
const SMALL_BUNDLE_BYTES = 1024 * 1024;
const KEPT_ON_DISK = 8;
/** A checkout in use is touched this often, and one touched more recently is never removed (another worker on the machine may be using it). */
const TOUCH_MS = 60_000;
const IN_USE_MS = 10 * TOUCH_MS;

export interface CheckoutCounts {
  /** Checkouts made through git (a fresh one, or one made afresh after an agent changed it). */
  made: number;
  /** Of those, checkouts made afresh because the folder no longer held what its checkout wrote. */
  reset: number;
}

export interface CheckoutLease {
  readonly dir: string;
  release(): void;
}

interface Kept {
  readonly tree: string;
  readonly dir: string;
  inFlight: number;
  lastUsed: number;
  touched: number;
  /** The check (and checkout) a job waits for before it runs: null once the checkout went idle, so the next job checks again. */
  checked: Promise<void> | null;
  /**
   * The folder's tree id on disk right after its checkout: the snapshot's tree, unless git
   * converted files as it wrote them (`.gitattributes`: line endings, `ident`, filters). An idle
   * checkout is checked against it, so such a version is not checked out again at every run.
   */
  written: string | null;
}

export interface WarmCheckouts {
  take(version: JobVersion, bundle: (key: string) => Promise<Buffer | null>): Promise<CheckoutLease>;
  readonly counts: Readonly<CheckoutCounts>;
}

/**
 * `onEvict` closes what was started on a checkout about to be removed (its runtimes); `note`
 * says each checkout made, with the counts so far, in the worker's log.
 */
export function warmCheckouts(cacheDir: string, onEvict: (tree: string) => Promise<void>, note: (message: string) => void): WarmCheckouts {
  const root = path.join(cacheDir, 'snapshots');
  // This process's own folders: <tree>-<owner>. Random, not the pid: containers sharing a cache have the same pids.
  const owner = randomBytes(6).toString('hex');
  const kept = new Map<string, Kept>();
  /** Checkouts being evicted (their runtimes closed, their folder removed): a job of that version waits for it, then checks the version out again. */
  const evicting = new Map<string, Promise<void>>();
  const counts: CheckoutCounts = { made: 0, reset: 0 };

  async function checkOut(version: JobVersion, dir: string, bundle: (key: string) => Promise<Buffer | null>, why: 'new' | 'reset'): Promise<void> {
    const { snapshot } = version;
    await rm(dir, { recursive: true, force: true });
    const folders = [`blueprints/${version.blueprint}`, `rubrics/${version.task}`];
    const splits = splitNames.map((split) => `rubrics/${version.task}/${split}.jsonl`);
    // A small bundle first: one read from Redis and two git processes, where a fetch is several
    // processes and a round trip to the remote (which never has a candidate that was not pushed).
    // A large one is fetched from the workspace's remote when it has the commit (only what the
    // worker lacks travels), the bundle being the fallback.
    const fromRemote = async () => snapshot.remote !== null && (await checkoutFromRemote(snapshot.remote, folders, splits, snapshot.tree, path.join(cacheDir, 'remote.git'), dir));
    // A bundle that is there but cannot be checked out (Redis failed, git failed) still lets the
    // remote be tried; its failure is the one said when the remote cannot serve either.
    let bundleFailure: unknown = null;
    const fromBundle = async () => {
      try {
        const bytes = await bundle(snapshot.bundleKey);
        if (bytes === null) return false;
        await checkoutSnapshot(bytes, snapshot.commit, dir);
        return true;
      } catch (error) {
        // checkoutSnapshot leaves nothing at `dir` when it fails (its folder is moved there complete).
        bundleFailure = error;
        return false;
      }
    };
    const routes: Array<readonly [string, () => Promise<boolean>]> = [
      ['its bundle', fromBundle],
      ['the remote', fromRemote],
    ];
    if (snapshot.bundleBytes > SMALL_BUNDLE_BYTES) routes.reverse();
    let from: string | null = null;
    for (const [name, route] of routes) {
      if (await route()) {
        from = name;
        break;
      }
    }
    if (from === null && bundleFailure !== null) throw bundleFailure;
    if (from === null) throw new Error(`the bundle of ${snapshot.source.slice(0, 12)} is not in the queue (expired?)${snapshot.remote ? ', and the remote could not serve its commit' : ''}; run the command again`);
    counts.made += 1;
    if (why === 'reset') counts.reset += 1;
    note(`checked out ${snapshot.tree.slice(0, 12)} from ${from}${why === 'reset' ? ' afresh (a run had changed its files)' : ''}; checkouts made: ${counts.made}, afresh: ${counts.reset}`);
  }

  /** The checkout holds what its checkout wrote, or is made (again). */
  async function ensure(version: JobVersion, entry: Kept, bundle: (key: string) => Promise<Buffer | null>, first: boolean): Promise<void> {
    if (await holdsTree(entry.dir, entry.written ?? version.snapshot.tree)) return;
    // A folder left by an earlier worker process, or changed by a run: made again. None: made.
    const existed = await stat(entry.dir).then(() => true, () => false);
    await checkOut(version, entry.dir, bundle, existed || !first ? 'reset' : 'new');
    entry.written = await treeIdOf(entry.dir, version.snapshot.tree);
  }

  async function evict(current: string): Promise<void> {
    await evictIdle(
      kept,
      KEPT_CHECKOUTS,
      async (tree, old) => {
        // A failure is said, not thrown: the job that made room has its own checkout, and nothing is wrong with it.
        const said = (error: unknown) => note(`could not evict the checkout of ${tree.slice(0, 12)}: ${error instanceof Error ? error.message : String(error)}`);
        const removing = (async () => {
          await onEvict(tree).catch(said);
          await rm(old.dir, { recursive: true, force: true }).catch(said);
        })();
        evicting.set(tree, removing);
        await removing;
        if (evicting.get(tree) === removing) evicting.delete(tree);
      },
      (tree) => tree === current,
    );
    // The cache folder: the most recently used stay, the others go. Never one of this worker's own
    // (<tree>-<owner>): those are its checkouts, evicted above, or one being made again right now.
    const names = await readdir(root).catch(() => [] as string[]);
    const dated = await Promise.all(
      names.filter((name) => /^[0-9a-f]{40}([0-9a-f]{24})?(-[0-9a-f]{12})?$/.test(name) && !name.endsWith(`-${owner}`)).map(async (name) => ({ name, at: (await stat(path.join(root, name)).catch(() => null))?.mtimeMs ?? 0 })),
    );
    dated.sort((a, b) => b.at - a.at);
    const recent = systemClock.now().getTime() - IN_USE_MS;
    for (const { name, at } of dated.slice(Math.max(0, KEPT_ON_DISK - kept.size))) if (at < recent) await rm(path.join(root, name), { recursive: true, force: true });
  }

  async function take(version: JobVersion, bundle: (key: string) => Promise<Buffer | null>): Promise<CheckoutLease> {
    const { tree } = version.snapshot;
    let entry = kept.get(tree);
    if (!entry) {
      const fresh: Kept = { tree, dir: path.join(root, `${tree}-${owner}`), inFlight: 0, lastUsed: systemClock.now().getTime(), touched: systemClock.now().getTime(), checked: null, written: null };
      // Its folder (the same path) may be being removed by an eviction: that ends first.
      const removing = evicting.get(tree);
      fresh.checked = (async () => {
        await removing;
        await ensure(version, fresh, bundle, true);
        const now = systemClock.now();
        await utimes(fresh.dir, now, now).catch(() => undefined);
        await evict(tree);
      })();
      kept.set(tree, fresh);
      // A failed checkout is tried again by the next job (the job itself is retried by BullMQ).
      fresh.checked.catch(() => {
        if (kept.get(tree) === fresh) kept.delete(tree);
      });
      entry = fresh;
    } else if (entry.checked === null) {
      // No job in flight on it: whatever the last ones wrote is undone before this one runs.
      entry.checked = ensure(version, entry, bundle, false);
    }
    // In flight from before it waits: a job released meanwhile never sets the check to be made
    // again (and a folder made afresh) under this one, nor is the checkout evicted while it waits.
    const leased = entry;
    leased.inFlight += 1;
    const checked = leased.checked;
    try {
      await checked;
    } catch (error) {
      leased.inFlight -= 1;
      // The last job that waited on a failed check leaves the next one to check again.
      if (leased.inFlight === 0 && leased.checked === checked) leased.checked = null;
      throw error;
    }
    leased.lastUsed = systemClock.now().getTime();
    if (leased.lastUsed - leased.touched > TOUCH_MS) {
      leased.touched = leased.lastUsed;
      const now = systemClock.now();
      void utimes(leased.dir, now, now).catch(() => undefined);
    }
    let released = false;
    return {
      dir: leased.dir,
      release: () => {
        if (released) return;
        released = true;
        leased.inFlight -= 1;
        if (leased.inFlight === 0) leased.checked = null;
      },
    };
  }

  return { take, counts };
}
