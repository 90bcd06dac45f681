// A version of the blueprint and the task as one self-contained git commit, carried to workers
// as a git bundle. The commit is built in a scratch repository (the workspace's own refs, index
// and object store are never touched), from the files as they are in the checkout, committed or
// not: what a local run would run is what a worker runs. Fixed author and dates make the same
// files give the same commit, so workers cache checkouts by content.
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { runProcess } from '../process/runner.ts';
import { gitEnvironment, GIT_TIMEOUT_MS, pathExists } from './git-process.ts';
import { makeBareRepository, packOfBundle, writeBranch, writeRootCommit } from './scratch-repository.ts';

export interface SnapshotBundle {
  readonly commit: string;
  /** The content fingerprint of the snapshot (its root tree). */
  readonly tree: string;
  readonly bytes: Buffer;
}

/** The snapshot commit's author and committer: 2000-01-01T00:00:00Z. */
const SNAPSHOT_IDENTITY = { name: 'agentdevel', email: 'agentdevel@localhost', seconds: 946_684_800 };

async function git(args: readonly string[], env: Record<string, string>, cwd: string): Promise<string> {
  const outcome = await runProcess({ command: 'git', args, cwd, env: { ...gitEnvironment(), ...env }, timeoutMs: GIT_TIMEOUT_MS });
  if (outcome.exitCode !== 0) {
    const why = outcome.spawnError ?? (outcome.timedOut ? 'timed out' : outcome.stderr.trim().split('\n').slice(0, 2).join(' '));
    throw new AgentdevelError('GIT_FAILED', `git ${args[0] ?? ''} failed while carrying a version to the workers: ${why}`);
  }
  return outcome.stdout.trim();
}

/** Bundles the folders `paths` (relative to `dir`) as one commit with no parent. Four git processes (besides the bundle's pack-objects). */
export async function bundleSnapshot(dir: string, paths: readonly string[], scratchRoot: string): Promise<SnapshotBundle> {
  await mkdir(scratchRoot, { recursive: true });
  const scratch = await mkdtemp(path.join(scratchRoot, 'snapshot-'));
  try {
    const gitDir = path.join(scratch, 'git');
    // Made by git: it records what the file system needs (core.ignorecase on macOS, core.filemode
    // where modes are not kept), which `git add` below honours as it reads the workspace.
    await git(['init', '-q', '--bare', gitDir], {}, scratch);
    const env = { GIT_DIR: gitDir, GIT_WORK_TREE: dir, GIT_INDEX_FILE: path.join(scratch, 'index') };
    // The workspace's .gitignore applies (git reads it from the work tree): ignored files stay home.
    await git(['add', '-A', '--', ...paths], env, dir);
    const tree = await git(['write-tree'], env, dir);
    // Written here, never signed whatever the user's commit.gpgSign (a signature carries its time),
    // with a fixed author and date: the same files give the same commit.
    const commit = await writeRootCommit(gitDir, tree, SNAPSHOT_IDENTITY, 'agentdevel snapshot');
    await writeBranch(gitDir, 'snapshot', commit);
    const file = path.join(scratch, 'snapshot.bundle');
    await git(['bundle', 'create', '-q', file, 'refs/heads/snapshot'], env, dir);
    return { commit, tree, bytes: await readFile(file) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Checks the snapshot out into `target` (made atomically: a folder there is complete). Returns
 * at once when `target` exists, which is the cache: its name is the snapshot's tree.
 */
export async function checkoutSnapshot(bytes: Buffer, commit: string, target: string): Promise<void> {
  if (await pathExists(target)) return;
  await mkdir(path.dirname(target), { recursive: true });
  const scratch = await mkdtemp(`${target}.partial-`);
  try {
    const gitDir = path.join(scratch, 'git');
    const files = path.join(scratch, 'files');
    await mkdir(files);
    // A version 2 bundle (SHA-1, no prerequisite: what bundleSnapshot writes) on Linux: its pack
    // is indexed in a repository made as files, where git's defaults are what git init would find
    // on a Linux file system. Anything else the way git does it all.
    const pack = process.platform === 'linux' ? packOfBundle(bytes) : null;
    if (pack) {
      await makeBareRepository(gitDir);
      const file = path.join(gitDir, 'objects', 'pack', 'snapshot.pack');
      await writeFile(file, pack);
      await git(['index-pack', file], { GIT_DIR: gitDir }, scratch);
    } else {
      await git(['init', '-q', '--bare', gitDir], {}, scratch);
      const bundle = path.join(scratch, 'snapshot.bundle');
      await writeFile(bundle, bytes);
      await git(['bundle', 'unbundle', bundle], { GIT_DIR: gitDir }, scratch);
    }
    const env = { GIT_DIR: gitDir, GIT_WORK_TREE: files, GIT_INDEX_FILE: path.join(scratch, 'index') };
    // Into an empty index and an empty folder: every file of the commit is written, in one process.
    await git(['read-tree', '--reset', '-u', commit], env, files);
    try {
      await rename(files, target);
    } catch (error) {
      // Another worker on this machine checked out the same snapshot first: theirs is as good.
      if (!(await pathExists(target))) throw error;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The workspace's remote as a worker may be handed it: `origin`'s URL with any password taken
 * out (a worker uses its own credentials), a local path made absolute; null when there is none.
 */
export async function remoteOf(dir: string): Promise<string | null> {
  const outcome = await runProcess({ command: 'git', args: ['remote', 'get-url', 'origin'], cwd: dir, env: gitEnvironment(), timeoutMs: GIT_TIMEOUT_MS });
  const url = outcome.exitCode === 0 ? outcome.stdout.trim() : '';
  if (url === '') return null;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    try {
      const parsed = new URL(url);
      parsed.password = '';
      return parsed.href;
    } catch {
      return null;
    }
  }
  // scp-like (git@host:path) stays as it is; anything else is a path on this machine.
  return /^[^/\\]+@[^/\\]+:/.test(url) || /^[^/\\:]+:[^/\\]/.test(url) ? url : path.resolve(dir, url);
}

/**
 * The ref a worker's cache repository keeps the commit it fetched last under: the next fetch
 * tells the remote it has it, so only what changed since travels. One for all the workers that
 * share the cache folder: two fetching at once may find it locked, and the one that does uses
 * the bundle instead.
 */
const FETCHED_REF = 'refs/agentdevel/fetched';

/**
 * Checks a snapshot out from the workspace's remote: fetches `commit` (the workspace commit the
 * snapshot was taken from) into `gitDir`, a bare repository kept between jobs, checks the
 * snapshot's folders out from it (the splits left out, as the bundle leaves them out: never
 * written) and moves them into `target` only when what was checked out is exactly the
 * snapshot's tree (compared as git objects, so a checkout that filters or converts line endings
 * still matches). False when the remote cannot serve it (unreachable, the commit not pushed,
 * other contents): the caller then uses the bundle. Three git processes (the fetch, the
 * checkout, the tree), besides the fetch's own.
 */
export async function checkoutFromRemote(
  remote: { readonly url: string; readonly commit: string },
  folders: readonly string[],
  excluded: readonly string[],
  tree: string,
  gitDir: string,
  target: string,
): Promise<boolean> {
  if (await pathExists(target)) return true;
  await mkdir(path.dirname(target), { recursive: true });
  if (!(await pathExists(path.join(gitDir, 'HEAD')))) await git(['init', '-q', '--bare', gitDir], {}, path.dirname(gitDir));
  const scratch = await mkdtemp(`${target}.remote-`);
  try {
    const files = path.join(scratch, 'files');
    await mkdir(files);
    // The index and the files are the scratch folder's; `target` gets them only once they match.
    const env = { GIT_DIR: gitDir, GIT_INDEX_FILE: path.join(scratch, 'index'), GIT_WORK_TREE: files };
    // Names as they are (`literal`: a folder named with `*` or `[` is no pattern); the splits excluded.
    const pathspecs = [...folders.map((folder) => `:(literal)${folder}`), ...excluded.map((file) => `:(exclude,literal)${file}`)];
    try {
      await git(['fetch', '-q', '--depth', '1', '--no-tags', '--', remote.url, `+${remote.commit}:${FETCHED_REF}`], env, scratch);
      // No hook runs (a user's core.hooksPath included): plumbing never ran one either.
      await git(['-c', 'core.hooksPath=/dev/null', 'checkout', '-q', remote.commit, '--', ...pathspecs], env, files);
      if ((await git(['write-tree'], env, scratch)) !== tree) return false;
    } catch {
      return false;
    }
    try {
      await rename(files, target);
    } catch (error) {
      if (!(await pathExists(target))) throw error;
    }
    return true;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
