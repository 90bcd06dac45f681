// Fetching and pushing refs, at the repository's top (see transfer.ts).
import type { Remotes } from '../../domain/ports/repository.ts';
import type { GitRunner } from './git-runner.ts';
import { transferRefs } from './transfer.ts';

export class RemoteTransfers implements Remotes {
  constructor(private readonly git: GitRunner) {}

  /** The names of the configured remotes. */
  async remotes(): Promise<string[]> {
    return (await this.git.raw(['remote'], 'remote')).split('\n').filter((name) => name.trim() !== '');
  }

  /** Fetches refs matching `refspec` from a remote (no tags), within `timeoutMs`. Returns why it failed (git's words), or null. */
  async fetchRefs(remote: string, refspec: string, timeoutMs: number): Promise<string | null> {
    return transferRefs(this.git.root, 'fetch', remote, ['--no-tags', refspec], timeoutMs);
  }

  /** Fetches or pushes refspecs to a remote (see transfer.ts). Returns why it failed (git's words), or null. */
  async transferRefs(verb: 'fetch' | 'push', remote: string, refspecs: readonly string[], timeoutMs: number): Promise<string | null> {
    return transferRefs(this.git.root, verb, remote, refspecs, timeoutMs);
  }
}
