import { parseDecisionDocument } from '../../domain/decision.ts';
import type { Ablation } from '../../domain/ablation.ts';
import { editsByType, editTypes, type EditType, type TypedChange } from '../../domain/release-candidate.ts';
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
  /** Each gate layer's verdict, in order (decisions of agentdevel 0.2 and later). */
  readonly layers: Array<{ layer: string; verdict: string }>;
  /** The candidate's requirement-violation rate: case-trials its scorers pass but a critic-judged requirement fails. */
  readonly violationRate: number | null;
  /** Mean trace cost (R_cost) per case-trial of the release candidate, and the weights used. */
  readonly traceCost: { readonly value: number; readonly weights: { steps: number; repeats: number; noops: number } } | null;
  readonly composite: number | null;
  readonly efficiencyRelease: boolean;
  /** The ablation the decision ran under (scratch lines), or null. */
  readonly ablation: Ablation | null;
  /** The RC's typed edits grouped by type (remove, revise, add), each a list of components. */
  readonly editsByType: Record<EditType, string[]> | null;
  /** True when the types were inferred from the diff (a person's change states none), not given by its author. */
  readonly editsInferred: boolean;
  /** The gate's hit rate (share of fixes whose symptom the intent targeted), when it had fixes to judge. */
  readonly hitRate: number | null;
}

/**
 * One entry per release candidate, read from git (the audit refs and the decision files they
 * carry), so the log survives losing the database.
 */
export async function readDecisionLog(workspace: Workspace): Promise<LogEntry[]> {
  const { repo, config } = workspace;
  const entries: LogEntry[] = [];
  const rcs = (await repo.refs(auditRefPrefix(config))).flatMap(({ ref, sha }) => {
    const iteration = iterationOf(ref);
    return iteration === null ? [] : [{ ref, sha, iteration }];
  });
  // Every RC's changes, then every decision file, each in one git process.
  const changes = await repo.changedPathsOfCommits(rcs.map((rc) => rc.sha));
  // The decision each commit wrote (an approval or a refusal moves it, so skip the side it left).
  const files = rcs.map(({ sha }) => (changes.get(sha) ?? []).find((c) => c.status !== 'D' && c.path.startsWith(`releases/${config.blueprint}/`) && c.path.endsWith('/decision.json')));
  const texts = await repo.readTextFilesAt(files.flatMap((file, i) => (file ? [{ commit: rcs[i]?.sha ?? '', path: file.path }] : [])));
  let read = 0;
  for (const [i, { ref, iteration }] of rcs.entries()) {
    const file = files[i];
    const text = file ? texts[read++] : null;
    if (!text) continue;
    const decision = parseDecisionDocument(text, `${ref}:${file?.path}`);
    const gate = decision.document?.gate ?? null;
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
      layers: gate?.layers.map((l) => ({ layer: l.layer, verdict: l.verdict })) ?? [],
      violationRate: gate?.requirements?.violationRate.candidate ?? null,
      traceCost: gate?.cost ? { value: gate.cost.candidate, weights: gate.cost.weights } : null,
      composite: gate?.composite?.candidate ?? null,
      efficiencyRelease: gate?.efficiency?.promoted ?? false,
      ablation: decision.document?.ablation ?? null,
      editsByType: decision.intent && 'edits' in decision.intent && Array.isArray(decision.intent.edits) && decision.intent.edits.length > 0 ? editsByType(decision.intent.edits as TypedChange[]) : null,
      editsInferred: decision.intent !== null && typeof decision.intent === 'object' && 'editsInferred' in decision.intent && decision.intent.editsInferred === true,
      hitRate: gate?.rates.hitRate ?? null,
    });
  }
  return entries.sort((a, b) => a.iteration - b.iteration);
}

/**
 * The hit rate per edit type across the line: over the RCs with an edit of that type, the share
 * of their fixes (F→P) whose baseline symptom the RC's intent targeted.
 */
export function hitRateByEditType(entries: readonly LogEntry[]): Array<{ type: EditType; rcs: number; hits: number; fixes: number }> {
  return editTypes.map((type) => {
    const withType = entries.filter((e) => (e.editsByType?.[type].length ?? 0) > 0);
    const fixes = withType.reduce((n, e) => n + e.f2p, 0);
    const hits = withType.reduce((n, e) => n + Math.round((e.hitRate ?? 0) * e.f2p), 0);
    return { type, rcs: withType.length, hits, fixes };
  });
}
