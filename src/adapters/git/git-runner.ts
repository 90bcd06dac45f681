// The one connection to a repository that the adapters of its narrow ports share (ref-reader.ts,
// history-reader.ts, history-writer.ts, checkouts.ts, line-checkout.ts, remotes.ts): where it
// is, who commits, and the ways to run git there. Every git command goes through the process
// runner (git-process.ts), so every git call agentdevel makes is in src/adapters/git/, bounded,
// in git's own environment. (Not through simple-git: it waits 50 ms more after every command
// that prints nothing, which is most writes and many lookups, and cannot be told not to.)
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import type { ProcessOutcome } from '../process/runner.ts';
import { execGit, failureOf, GIT_TIMEOUT_MS, gitEnvironment, gitFailure, probeOutcome, type Probe } from './git-process.ts';
import type { Plumbing } from './tree-writes.ts';

/** Used only when the repository has no identity configured (fresh CI machines). */
const FALLBACK_IDENTITY = ['user.name=agentdevel', 'user.email=agentdevel@localhost'];

/**
 * Git commands that never record who did something: they run without the identity, and a
 * command that runs only these (`log`, `show`, `report`) never looks the identity up.
 */
const READS = new Set(['cat-file', 'config', 'diff', 'diff-tree', 'for-each-ref', 'log', 'ls-files', 'ls-tree', 'merge-base', 'remote', 'rev-list', 'rev-parse', 'status', 'symbolic-ref']);

export class GitRunner {
  /** `-c` settings of who commits (none when the repository has an identity), looked up at the first write. */
  private identity: readonly string[] = [];
  private identityLookup: Promise<readonly string[]> | null = null;

  private constructor(
    readonly root: string,
    /** The repository's common git folder (shared by its worktrees), absolute. */
    readonly commonDir: string,
  ) {}

  /** The repository `dir` is in; not being in one is a clear error. */
  static async open(dir: string): Promise<GitRunner> {
    // One git process answers both: the top of the work tree, and the common git folder.
    const top = await execGit(['rev-parse', '--show-toplevel', '--git-common-dir'], dir, []);
    if (top.exitCode !== 0) {
      if (top.spawnError) throw gitFailure('rev-parse', new Error(top.spawnError));
      throw new AgentdevelError('NOT_A_REPOSITORY', `${dir} is not inside a git repository`, { cause: new Error(top.stderr.trim()) });
    }
    const [root = '', common = '.git'] = top.stdout.trim().split('\n');
    // --git-common-dir is relative to the folder git ran in.
    return new GitRunner(root, path.resolve(dir, common));
  }

  /** The identity settings a writing command needs: looked up once, by the first one. */
  async identityFor(args: readonly string[]): Promise<readonly string[]> {
    if (READS.has(args[0] ?? '')) return [];
    this.identityLookup ??= execGit(['config', '--get', 'user.email'], this.root, []).then((outcome) => {
      const email = probeOutcome(['config', '--get', 'user.email'], outcome);
      this.identity = email.found && email.stdout.trim() ? [] : FALLBACK_IDENTITY;
      return this.identity;
    });
    return this.identityLookup;
  }

  /** Runs git where exit 1 is an answer (absent, no), and anything else but 0 is a failure. */
  async probe(args: string[], dir = this.root): Promise<Probe> {
    return probeOutcome(args, await execGit(args, dir, await this.identityFor(args)));
  }

  /** Runs git (in `dir`, default the repository's top) and returns its output; a failure is GIT_FAILED naming `action`. */
  async raw(args: string[], action = args[0] ?? 'command', dir = this.root): Promise<string> {
    return outputOf(action, await execGit(args, dir, await this.identityFor(args)));
  }

  /** Runs a git plumbing command that reads standard input. */
  async plumbing(args: string[], input: string): Promise<string> {
    return outputOf(args[0] ?? 'plumbing', await execGit(args, this.root, await this.identityFor(args), input));
  }

  readonly plumber: Plumbing = (args, input) => this.plumbing(args, input);

  /** The value of `rev-parse --verify --quiet REV`, or null when REV names nothing. */
  async revParse(rev: string): Promise<string | null> {
    const sha = await this.probe(['rev-parse', '--verify', '--quiet', rev]);
    return sha.found ? sha.stdout.trim() || null : null;
  }

  /**
   * Runs git synchronously at the repository's top, with the identity already looked up (call
   * `identityFor` first): for what must not be interrupted half-way, and for exit hooks.
   */
  runSync(args: readonly string[], timeoutMs = GIT_TIMEOUT_MS): SpawnSyncReturns<string> {
    return spawnSync('git', [...this.identity.flatMap((c) => ['-c', c]), ...args], { cwd: this.root, env: gitEnvironment(), encoding: 'utf8', timeout: timeoutMs });
  }

  /** Who commits here, as git's committer ident line ("Name <email> <time> <zone>"). */
  async committerIdent(): Promise<string> {
    await this.identityFor(['var']);
    return (await this.raw([...this.identity.flatMap((c) => ['-c', c]), 'var', 'GIT_COMMITTER_IDENT'], 'var')).trim();
  }
}

/** What git printed, once it succeeded; any other end is GIT_FAILED naming `action`, with git's own words. */
function outputOf(action: string, outcome: ProcessOutcome): string {
  if (outcome.exitCode === 0) return outcome.stdout;
  throw gitFailure(action, failureOf(outcome));
}

export async function initRepository(dir: string, branch: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  outputOf('init', await execGit(['init', '--quiet', `--initial-branch=${branch}`], dir, []));
}
