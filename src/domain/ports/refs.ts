// What a promotion's journal needs of the repository: read and move refs in one transaction, and
// bring a checked-out line along. adapters/git/git.ts (GitRepo) implements it.

/** One ref of a transaction. */
export interface RefUpdate {
  readonly ref: string;
  /** The value the ref gets; null deletes it. */
  readonly newValue: string | null;
  /** The value the ref must have now; null means it must not exist yet. */
  readonly oldValue: string | null;
}

export interface PromotionRefs {
  readonly root: string;
  refValue(ref: string): Promise<string | null>;
  objectExists(sha: string): Promise<boolean>;
  currentBranch(): Promise<string | null>;
  /** Applies every update or none (git's ref transaction). */
  updateRefs(updates: readonly RefUpdate[]): Promise<void>;
  indexTree(): Promise<string>;
  treeOf(commit: string): Promise<string>;
  refreshIndex(): Promise<void>;
  /** What would stop the checkout moving from one tree to another (local edits in the way), or null. */
  checkoutMoveConflict(from: string, to: string): Promise<string | null>;
  moveCheckout(from: string, to: string): Promise<void>;
}
