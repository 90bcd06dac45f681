/** A path a commit changed, with git's status letter (A, M, D, R…). */
export interface ChangedPath {
  readonly status: string;
  readonly path: string;
}
