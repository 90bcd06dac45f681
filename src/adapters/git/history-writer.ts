// Documents and tags written to git as objects, and refs moved, through the repository's runner
// (git-runner.ts); trees are made by tree-writes.ts.
import type { HistoryReader, HistoryWriter, RefUpdate } from '../../domain/ports/repository.ts';
import type { GitRunner } from './git-runner.ts';
import { documentTree, graftedTree } from './tree-writes.ts';

export class HistoryWrites implements HistoryWriter {
  constructor(
    private readonly git: GitRunner,
    /** Where a graft reads the trees it starts from. */
    private readonly history: Pick<HistoryReader, 'treeOf' | 'treeId'>,
  ) {}

  /** Who this repository commits as ("Name <email>"), for records of who approved a release. */
  async committer(): Promise<string> {
    return (await this.git.committerIdent()).replace(/\s+\d+\s+[+-]\d{4}$/, '');
  }

  /** Creates an annotated tag object (no ref yet), so the tag ref can move with the line atomically. */
  async createTagObject(name: string, target: string, message: string): Promise<string> {
    const body = `object ${target}\ntype commit\ntag ${name}\ntagger ${await this.git.committerIdent()}\n\n${message.trimEnd()}\n`;
    return (await this.git.plumbing(['mktag'], body)).trim();
  }

  /**
   * Writes a commit that holds just these files (at the top of its tree), on top of `parent` (two
   * parents: a merge of two clones' chains), without touching any worktree or index: a document
   * recorded in git.
   */
  async documentCommit(parent: string | readonly string[], files: ReadonlyArray<{ name: string; content: string }>, message: string): Promise<string> {
    const tree = await documentTree(this.git.plumber, files);
    const parents = (typeof parent === 'string' ? [parent] : parent).flatMap((p) => ['-p', p]);
    return (await this.git.plumbing(['commit-tree', tree, ...parents, '-F', '-'], message)).trim();
  }

  /**
   * A commit on no branch: `onto`'s tree with `folder` as `from` has it (removed where `from` has
   * none), on top of `parent`. Written as objects only; nothing moves.
   */
  async graftCommit(input: { readonly onto: string; readonly folder: string; readonly from: string; readonly parent: string; readonly message: string }): Promise<string> {
    const tree = await graftedTree(this.git.plumber, await this.history.treeOf(input.onto), input.folder.split('/'), await this.history.treeId(input.from, input.folder));
    return (await this.git.plumbing(['commit-tree', tree, '-p', input.parent, '-F', '-'], input.message)).trim();
  }

  /** Moves several refs in one transaction: all of them move, or none does. */
  async updateRefs(updates: readonly RefUpdate[]): Promise<void> {
    const lines = ['start'];
    for (const u of updates) {
      if (u.newValue === null) lines.push(u.oldValue === null ? `delete ${u.ref}` : `delete ${u.ref} ${u.oldValue}`);
      else lines.push(u.oldValue === null ? `create ${u.ref} ${u.newValue}` : `update ${u.ref} ${u.newValue} ${u.oldValue}`);
    }
    lines.push('prepare', 'commit', '');
    await this.git.plumbing(['update-ref', '--stdin'], lines.join('\n'));
  }

  /** Deletes a ref; one that does not exist is fine. */
  async deleteRef(ref: string): Promise<void> {
    if ((await this.git.revParse(ref)) === null) return;
    await this.git.raw(['update-ref', '-d', ref], 'update-ref -d');
  }
}
