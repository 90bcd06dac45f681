import type { Config } from '../../config/schema.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { GitRepo } from '../../adapters/git/git.ts';
import { lineRef } from './workspace.ts';

/**
 * What makes up the line besides its branch: the release tags and agentdevel's audit refs
 * (refs/agentdevel/*, which git neither fetches nor pushes by default, so a fresh clone shows
 * an empty `log`).
 */
export function lineRefspecs(config: Config): { fetch: string[]; push: string[] } {
  const tags = `refs/tags/${config.line.tagPrefix}${config.blueprint}/*`;
  return {
    fetch: ['refs/agentdevel/*:refs/agentdevel/*', `${tags}:${tags}`],
    push: [`${lineRef(config)}:${lineRef(config)}`, `${tags}:${tags}`, 'refs/agentdevel/*:refs/agentdevel/*'],
  };
}

/** A fetch or push of the line's refs that has not finished by then has hung (a remote that never answers, a credential prompt); `sync --timeout` changes it. */
export const DEFAULT_SYNC_TIMEOUT_S = 30;

export interface SyncRequest {
  readonly remote: string;
  readonly fetch: boolean;
  readonly push: boolean;
  /** How long each of the fetch and the push may take (default DEFAULT_SYNC_TIMEOUT_S). */
  readonly timeoutMs?: number;
}

/** Fetches, then pushes, the line's refs: after it, the remote and this clone hold the same releases and audit refs. */
export async function syncLine(repo: GitRepo, config: Config, request: SyncRequest): Promise<{ fetched: string[]; pushed: string[] }> {
  const refspecs = lineRefspecs(config);
  // A pull request's checkout has no local line branch; fetch it too, unless it is checked out here.
  const line = lineRef(config);
  if ((await repo.currentBranch()) !== config.line.branch) refspecs.fetch.push(`${line}:${line}`);
  for (const [verb, wanted, specs] of [['fetch', request.fetch, refspecs.fetch], ['push', request.push, refspecs.push]] as const) {
    if (!wanted) continue;
    const timeoutMs = request.timeoutMs ?? DEFAULT_SYNC_TIMEOUT_S * 1000;
    const failure = await repo.transferRefs(verb, request.remote, specs, timeoutMs);
    if (failure !== null) {
      const hung = failure.startsWith('no answer within');
      throw new AgentdevelError('GIT_FAILED', `git ${verb} ${request.remote} failed: ${failure}${hung ? ` (it was stopped; nothing ${verb === 'fetch' ? 'was fetched' : 'was pushed'})` : ''}`, {
        hint: hung ? `Check that the remote answers (git ls-remote ${request.remote}), or give it longer: agentdevel sync --timeout SECONDS.` : 'A git command failed; the message has git\'s own words.',
      });
    }
  }
  return { fetched: request.fetch ? refspecs.fetch : [], pushed: request.push ? refspecs.push : [] };
}
