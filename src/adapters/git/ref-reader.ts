// Refs and how commits relate, read through the repository's runner (git-runner.ts).
import type { RefDetail, RefReader } from '../../domain/ports/repository.ts';
import { parseRefDetails, parseRefs, REF_FORMAT } from './batch-reads.ts';
import type { GitRunner } from './git-runner.ts';

export class RefReads implements RefReader {
  readonly root: string;

  constructor(private readonly git: GitRunner) {
    this.root = git.root;
  }

  /** The commit a ref names, or null when it names none. A broken repository throws. */
  async resolve(ref: string): Promise<string | null> {
    return this.git.revParse(`${ref}^{commit}`);
  }

  async refValue(ref: string): Promise<string | null> {
    return this.git.revParse(ref);
  }

  async objectExists(sha: string): Promise<boolean> {
    return (await this.git.probe(['cat-file', '-e', sha])).found;
  }

  /** The branch checked out in the main worktree, or null when HEAD is detached. */
  async currentBranch(): Promise<string | null> {
    const name = await this.git.probe(['symbolic-ref', '--quiet', '--short', 'HEAD']);
    return name.found ? name.stdout.trim() || null : null;
  }

  /** Refs under a prefix with the objects they point at and those objects' kinds (commit, tag, tree, blob), sorted by name. */
  async refs(prefix: string): Promise<Array<{ ref: string; sha: string; type: string }>> {
    return parseRefs(await this.git.raw(['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)', prefix], 'for-each-ref'));
  }

  /**
   * Refs matching any of `patterns` (a full name, or a prefix ending in "/"), each with the
   * commit it names, that commit's tree, parents and date: one git process for them all.
   */
  async refDetails(patterns: readonly string[]): Promise<RefDetail[]> {
    if (patterns.length === 0) return [];
    return parseRefDetails(await this.git.raw(['for-each-ref', `--format=${REF_FORMAT}`, ...patterns], 'for-each-ref'));
  }

  /** The best common ancestor of two commits, or null when they share none. */
  async mergeBase(a: string, b: string): Promise<string | null> {
    const base = await this.git.probe(['merge-base', a, b]);
    return base.found ? base.stdout.trim() || null : null;
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return (await this.git.probe(['merge-base', '--is-ancestor', ancestor, descendant])).found;
  }

  async isShallow(): Promise<boolean> {
    return (await this.git.raw(['rev-parse', '--is-shallow-repository'], 'rev-parse')).trim() === 'true';
  }
}
