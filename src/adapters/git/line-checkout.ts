// The main worktree brought along when a promotion moves the line it has checked out (the
// checkout half of domain/ports/refs.ts's PromotionRefs), through the repository's runner.
import type { PromotionRefs } from '../../domain/ports/refs.ts';
import { execGit, failureOf, gitFailure } from './git-process.ts';
import type { GitRunner } from './git-runner.ts';

export type CheckoutMoves = Pick<PromotionRefs, 'indexTree' | 'refreshIndex' | 'checkoutMoveConflict' | 'moveCheckout'>;

export class LineCheckout implements CheckoutMoves {
  constructor(private readonly git: GitRunner) {}

  /** The tree the index of the main worktree holds now (written as an object, as `git write-tree` does). */
  async indexTree(): Promise<string> {
    return (await this.git.raw(['write-tree'], 'write-tree')).trim();
  }

  /** Refreshes the index's stat data, so files whose times changed but whose content did not count as unchanged. */
  async refreshIndex(): Promise<void> {
    // Exit 1 lists files that really changed: an answer, not a failure.
    await this.git.probe(['update-index', '-q', '--refresh']);
  }

  /** Why moving the checkout from one commit to another would fail (git's words), or null when it would not. */
  async checkoutMoveConflict(from: string, to: string): Promise<string | null> {
    const outcome = await execGit(['read-tree', '-m', '-u', '--dry-run', from, to], this.git.root, await this.git.identityFor(['read-tree']));
    if (outcome.exitCode === 0) return null;
    if (outcome.exitCode === 128 && /not uptodate|would be overwritten|Cannot merge/i.test(outcome.stderr)) {
      return outcome.stderr.trim().split('\n').slice(0, 3).join('; ');
    }
    throw gitFailure('read-tree', failureOf(outcome));
  }

  /**
   * Moves the main worktree's index and files from one commit to another, as a fast-forward
   * does: local changes to files the move does not touch are kept; a conflict changes nothing.
   */
  async moveCheckout(from: string, to: string): Promise<void> {
    await this.git.raw(['read-tree', '-m', '-u', from, to], 'read-tree');
  }
}
