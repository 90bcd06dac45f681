import { parseDecisionDocument } from '../domain/decision.ts';
import type { Workspace } from './workspace.ts';
import { auditRefPrefix, iterationOf } from './versions.ts';

export interface LogEntry {
  readonly rc: string;
  readonly iteration: number;
  readonly decision: 'promoted' | 'rejected' | 'pending' | 'declined';
  readonly f2p: number;
  readonly p2f: number;
  readonly tag: string | null;
  readonly f2pCases: string[];
  readonly p2fCases: string[];
  readonly reasons: string[];
  readonly targets: string[];
  readonly rationale: string;
  readonly fingerprint: string | null;
  readonly commit: string;
  readonly simulated: boolean;
  readonly costUsd: number | null;
}

/**
 * One entry per release candidate, read from git (the audit refs and the decision files they
 * carry), so the log survives losing the database.
 */
export async function readDecisionLog(workspace: Workspace): Promise<LogEntry[]> {
  const { repo, config } = workspace;
  const entries: LogEntry[] = [];
  for (const { ref, sha } of await repo.refs(auditRefPrefix(config))) {
    const iteration = iterationOf(ref);
    if (iteration === null) continue;
    const changed = await repo.changedPaths(`${sha}^`, sha);
    const file = changed.find((c) => c.path.startsWith(`releases/${config.blueprint}/`) && c.path.endsWith('/decision.json'));
    const text = file ? await repo.readFileAt(sha, file.path) : null;
    if (!text) continue;
    const decision = parseDecisionDocument(text, `${ref}:${file?.path}`);
    entries.push({
      rc: decision.candidate.ref,
      iteration,
      decision: decision.outcome,
      f2p: decision.f2p.length,
      p2f: decision.p2f.length,
      tag: decision.release,
      f2pCases: decision.f2p,
      p2fCases: decision.p2f,
      reasons: decision.reasons,
      targets: decision.intent?.targets ?? [],
      rationale: decision.intent?.rationale ?? '',
      fingerprint: decision.fingerprint ?? null,
      commit: decision.candidate.commit,
      simulated: decision.simulated,
      costUsd: decision.costUsd,
    });
  }
  return entries.sort((a, b) => a.iteration - b.iteration);
}
