// The one module that imports simple-git (house rule 6). Plumbing that needs standard input
// (mktag, update-ref --stdin) goes through the process runner, still from this module, so every
// git call agentdevel makes is here.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { AgentdevelError } from '../domain/errors.ts';
import { runProcess } from '../process/runner.ts';

/** Used only when the repository has no identity configured (fresh CI machines). */
const FALLBACK_IDENTITY = ['user.name=agentdevel', 'user.email=agentdevel@localhost'];

export interface RefUpdate {
  readonly ref: string;
  readonly newValue: string;
  /** The value the ref must have now; null means it must not exist yet. */
  readonly oldValue: string | null;
}

export interface ChangedPath {
  readonly status: string;
  readonly path: string;
}

function gitFailure(action: string, error: unknown): AgentdevelError {
  const message = error instanceof Error ? error.message.trim().split('\n').slice(0, 3).join(' ') : String(error);
  return new AgentdevelError('GIT_FAILED', `git ${action} failed: ${message}`, { cause: error });
}

export class GitRepo {
  private constructor(
    readonly root: string,
    private readonly git: SimpleGit,
    private readonly identity: readonly string[],
  ) {}

  static async open(dir: string): Promise<GitRepo> {
    let root: string;
    try {
      root = (await simpleGit({ baseDir: dir }).raw(['rev-parse', '--show-toplevel'])).trim();
    } catch (cause) {
      throw new AgentdevelError('NOT_A_REPOSITORY', `${dir} is not inside a git repository`, { cause });
    }
    const probe = simpleGit({ baseDir: root });
    const email = await probe.raw(['config', '--get', 'user.email']).catch(() => '');
    const identity = email.trim() ? [] : FALLBACK_IDENTITY;
    return new GitRepo(root, simpleGit({ baseDir: root, config: [...identity] }), identity);
  }

  /** A git handle on another worktree of the same repository, with the same identity. */
  private at(dir: string): SimpleGit {
    return simpleGit({ baseDir: dir, config: [...this.identity] });
  }

  private async raw(args: string[], action = args[0] ?? 'command', dir?: string): Promise<string> {
    try {
      return await (dir ? this.at(dir) : this.git).raw(args);
    } catch (error) {
      throw gitFailure(action, error);
    }
  }

  /** Runs a git plumbing command that reads standard input. */
  private async plumbing(args: string[], input: string): Promise<string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    for (const name of ['HOME', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_GLOBAL', 'XDG_CONFIG_HOME']) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    const config = this.identity.flatMap((c) => ['-c', c]);
    const outcome = await runProcess({ command: 'git', args: [...config, ...args], cwd: this.root, env, input });
    if (outcome.exitCode !== 0) throw gitFailure(args[0] ?? 'plumbing', new Error(outcome.stderr || outcome.spawnError || 'failed'));
    return outcome.stdout;
  }

  async currentBranch(): Promise<string | null> {
    const name = await this.git.raw(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '');
    return name.trim() || null;
  }

  /** The commit a ref names, or null when it names none. */
  async resolve(ref: string): Promise<string | null> {
    const sha = await this.git.raw(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(() => '');
    return sha.trim() || null;
  }

  async refValue(ref: string): Promise<string | null> {
    const sha = await this.git.raw(['rev-parse', '--verify', '--quiet', ref]).catch(() => '');
    return sha.trim() || null;
  }

  /** The tree id of a folder at a commit (a content hash of the folder), or null if absent. */
  async treeId(commit: string, folder: string): Promise<string | null> {
    const sha = await this.git.raw(['rev-parse', '--verify', '--quiet', `${commit}:${folder}`]).catch(() => '');
    return sha.trim() || null;
  }

  async readFileAt(commit: string, file: string): Promise<string | null> {
    return this.git.raw(['show', `${commit}:${file}`]).catch(() => null);
  }

  async objectExists(sha: string): Promise<boolean> {
    return this.git
      .raw(['cat-file', '-e', sha])
      .then(() => true)
      .catch(() => false);
  }

  /** Paths with uncommitted changes (tracked or untracked, ignored files excluded). */
  async uncommittedPaths(dir = this.root): Promise<string[]> {
    const out = await this.raw(['status', '--porcelain', '--untracked-files=all'], 'status', dir);
    return out
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.slice(3));
  }

  /** Keeps agentdevel's own state out of `git status` even when .gitignore does not mention it. */
  async excludeFromStatus(patterns: readonly string[]): Promise<void> {
    const gitDir = path.resolve(this.root, (await this.raw(['rev-parse', '--git-common-dir'])).trim());
    const file = path.join(gitDir, 'info', 'exclude');
    const current = await readFile(file, 'utf8').catch(() => '');
    const missing = patterns.filter((p) => !current.split('\n').includes(p));
    if (missing.length === 0) return;
    await mkdir(path.dirname(file), { recursive: true });
    await appendFile(file, `${current.endsWith('\n') || current === '' ? '' : '\n'}# agentdevel state\n${missing.join('\n')}\n`);
  }

  async addWorktree(dir: string, commit: string, branch: string | null): Promise<void> {
    const args = branch ? ['worktree', 'add', '-B', branch, dir, commit] : ['worktree', 'add', '--detach', dir, commit];
    await this.raw(args, 'worktree add');
  }

  async removeWorktree(dir: string): Promise<void> {
    await this.git.raw(['worktree', 'remove', '--force', dir]).catch(() => undefined);
    await this.git.raw(['worktree', 'prune']).catch(() => undefined);
  }

  async deleteBranch(name: string): Promise<void> {
    await this.git.raw(['branch', '-D', name]).catch(() => undefined);
  }

  /** Stages everything in a worktree and commits it; returns the new commit. */
  async commitAll(dir: string, message: string): Promise<string> {
    await this.raw(['add', '--all'], 'add', dir);
    await this.raw(['commit', '--quiet', '--allow-empty', '-m', message], 'commit', dir);
    return (await this.raw(['rev-parse', 'HEAD'], 'rev-parse', dir)).trim();
  }

  /**
   * Commits exactly these paths of a worktree (added, changed or deleted) and nothing else, so
   * files a run left in the worktree can never slip into a release.
   */
  async commitPaths(dir: string, paths: readonly string[], message: string): Promise<string> {
    if (paths.length > 0) await this.raw(['add', '--all', '--', ...paths], 'add', dir);
    await this.raw(['commit', '--quiet', '--allow-empty', '-m', message, '--', ...paths], 'commit', dir);
    return (await this.raw(['rev-parse', 'HEAD'], 'rev-parse', dir)).trim();
  }

  async changedPaths(from: string, to: string): Promise<ChangedPath[]> {
    const out = await this.raw(['diff', '--name-status', '--no-renames', from, to], 'diff');
    return out
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [status, ...rest] = line.split('\t');
        return { status: status ?? '', path: rest.join('\t') };
      });
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    const base = await this.git.raw(['merge-base', a, b]).catch(() => '');
    return base.trim() || null;
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return this.git
      .raw(['merge-base', '--is-ancestor', ancestor, descendant])
      .then(() => true)
      .catch(() => false);
  }

  /** Refs under a prefix with the objects they point at, sorted by name. */
  async refs(prefix: string): Promise<Array<{ ref: string; sha: string }>> {
    const out = await this.raw(['for-each-ref', '--format=%(refname) %(objectname)', prefix], 'for-each-ref');
    return out
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [ref, sha] = line.split(' ');
        return { ref: ref ?? '', sha: sha ?? '' };
      });
  }

  /** Creates an annotated tag object (no ref yet), so the tag ref can move with the line atomically. */
  async createTagObject(name: string, target: string, message: string): Promise<string> {
    const ident = (await this.raw([...this.identity.flatMap((c) => ['-c', c]), 'var', 'GIT_COMMITTER_IDENT'], 'var')).trim();
    const body = `object ${target}\ntype commit\ntag ${name}\ntagger ${ident}\n\n${message.trimEnd()}\n`;
    return (await this.plumbing(['mktag'], body)).trim();
  }

  /** Moves several refs in one transaction: all of them move, or none does. */
  async updateRefs(updates: readonly RefUpdate[]): Promise<void> {
    const lines = ['start'];
    for (const u of updates) {
      lines.push(u.oldValue === null ? `create ${u.ref} ${u.newValue}` : `update ${u.ref} ${u.newValue} ${u.oldValue}`);
    }
    lines.push('prepare', 'commit', '');
    await this.plumbing(['update-ref', '--stdin'], lines.join('\n'));
  }

  async deleteRef(ref: string): Promise<void> {
    await this.git.raw(['update-ref', '-d', ref]).catch(() => undefined);
  }

  /** The tree the index of the main worktree holds now (written as an object, as `git write-tree` does). */
  async indexTree(): Promise<string> {
    return (await this.raw(['write-tree'], 'write-tree')).trim();
  }

  async treeOf(commit: string): Promise<string> {
    return (await this.raw(['rev-parse', `${commit}^{tree}`], 'rev-parse')).trim();
  }

  /**
   * Moves the main worktree's index and files from one commit to another, as a fast-forward
   * does: local changes to files the move does not touch are kept; a conflict changes nothing.
   */
  async moveCheckout(from: string, to: string): Promise<void> {
    await this.raw(['read-tree', '-m', '-u', from, to], 'read-tree');
  }

}

export async function initRepository(dir: string, branch: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  try {
    await simpleGit({ baseDir: dir }).raw(['init', '--quiet', `--initial-branch=${branch}`]);
  } catch (error) {
    throw gitFailure('init', error);
  }
}

/** Files git would track under `folder` of the worktree at `dir` (committed or not, ignored excluded). */
export async function trackedFiles(dir: string, folder: string): Promise<string[]> {
  try {
    const out = await simpleGit({ baseDir: dir }).raw(['ls-files', '--cached', '--others', '--exclude-standard', '--', folder]);
    return [...new Set(out.split('\n').filter((l) => l.trim() !== ''))].sort();
  } catch (error) {
    throw gitFailure('ls-files', error);
  }
}
