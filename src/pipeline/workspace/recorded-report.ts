import { parseCaseEvidence, type CaseEvidenceDocument } from '../../domain/case-evidence.ts';
import { parseDecisionDocument, type DecisionDocument } from '../../domain/decision.ts';
import type { DiagnosisReport } from '../../domain/diagnosis.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { readDiagnosisRecord } from '../../domain/git-documents.ts';
import { GRADIENT_FILE, gradientSummary, parseGradientDocument, type GradientSummary } from '../../domain/gradient.ts';
import type { LabelMergeProposal } from '../../domain/label-aliases.ts';
import { releaseTags, type LineRefs } from './line-history.ts';
import { auditRef, gradientRef } from './versions.ts';
import type { Workspace } from './workspace.ts';

/** A recorded gate decision as git holds it: its documents, and the folder it lives in. */
export interface RecordedDecision {
  /** What the user asked for, resolved: a tag or an audit ref. */
  readonly ref: string;
  /** releases/<bp>/vN or releases/<bp>/rejected/iter-NNN */
  readonly folder: string;
  readonly document: DecisionDocument;
  readonly cases: CaseEvidenceDocument | null;
  readonly diagnosis: DiagnosisReport | null;
  /** The decision's iteration's gradient records, summarized; null when it has none (a gate outside the loop). */
  readonly gradient: GradientSummary | null;
  /** The label merges recorded with the diagnosis (none before diagnosis-report@3). */
  readonly labelMerges: LabelMergeProposal[];
}

/**
 * Resolves what `report` was given: nothing (the newest release), a release tag (with or
 * without the tag prefix), an RC (iter-NNN, a number, its branch name from `log`, or its audit
 * ref), or any commit that recorded a decision.
 */
async function resolveTarget(
  workspace: Workspace,
  target: string | null,
  lineRefs: LineRefs | undefined,
): Promise<{ ref: string; release: { commit: string | null; parents: readonly string[]; version: number } | null; tags: ReadonlyArray<{ tag: string }> }> {
  const { repo, config } = workspace;
  const tags = await releaseTags(repo, config, lineRefs);
  const release = (found: (typeof tags)[number]) => ({ ref: found.tag, release: { commit: found.detail.commit, parents: found.detail.parents, version: found.version }, tags });
  if (target === null) {
    const newest = tags.at(-1);
    if (!newest) throw new AgentdevelError('USAGE', `no release of ${config.blueprint} yet`, { hint: 'Name a rejected RC (`agentdevel report iter-001`; `agentdevel log` lists them), or run `agentdevel iterate`.' });
    return release(newest);
  }
  const tag = tags.find((t) => t.tag === target || t.tag === `${config.line.tagPrefix}${target}`);
  if (tag) return release(tag);
  const iteration = /^(?:refs\/agentdevel\/rc\/.+\/|agentdevel\/rc\/.+\/)?(?:iter-)?(\d+)$/.exec(target)?.[1];
  return { ref: iteration !== undefined ? auditRef(config, Number(iteration)) : target, release: null, tags };
}

/**
 * `lineRefs` (the line's tags, from readLineRefs) saves listing them again when the caller has them.
 */
export async function readRecordedDecision(workspace: Workspace, target: string | null, lineRefs?: LineRefs): Promise<RecordedDecision> {
  const { repo, config } = workspace;
  // A release tag comes with its commit and parents from the listing of tags; anything else is looked up.
  const { ref, release, tags } = await resolveTarget(workspace, target, lineRefs);
  const commit = release ? release.commit : await repo.resolve(ref);
  if (!commit) throw new AgentdevelError('REF_NOT_FOUND', `"${target ?? ref}" names no release, RC or commit in ${workspace.root}`, { hint: '`agentdevel log` lists the RCs and their tags; fetch refs/agentdevel/* on a fresh clone (`agentdevel sync`).' });
  // The decision is what the release (or rejection) commit added on top of the candidate.
  // A root commit (a tag put by hand on the first commit) recorded nothing on top of anything.
  const parents = release ? release.parents : await repo.parents(commit);
  const added = release && parents[0] ? await releaseAdded(workspace, commit, parents[0], release.version) : null;
  const changed = added !== null || parents.length === 0 ? [] : await repo.changedPaths(`${commit}^`, commit);
  // An approval moves the pending folder: the decision is the one the commit added, not the one it removed.
  const file = added?.file ?? changed.find((c) => c.status !== 'D' && c.path.startsWith(`releases/${config.blueprint}/`) && c.path.endsWith('/decision.json'))?.path;
  if (!file) {
    const looksLikeRelease = tags.some((t) => t.tag === ref);
    throw new AgentdevelError(
      'USAGE',
      looksLikeRelease
        ? `the tag ${ref} is named like a release of ${config.blueprint}, but its commit (${commit.slice(0, 10)}) recorded no gate decision: it is not a release agentdevel made`
        : `${ref} (${commit.slice(0, 10)}) recorded no gate decision of ${config.blueprint}`,
      { hint: looksLikeRelease ? `\`agentdevel log\` lists the releases; a tag made by hand can be removed with \`git tag -d ${ref}\`.` : 'Name a release tag or an RC from `agentdevel log`.' },
    );
  }
  const folder = file.slice(0, -'/decision.json'.length);
  const [decisionText = null, casesText = null] =
    added?.texts ??
    (await repo.readTextFilesAt([
      { commit, path: file },
      { commit, path: `${folder}/cases.json` },
    ]));
  const summary = parseDecisionDocument(decisionText ?? '', `${ref}:${file}`);
  if (!summary.document) throw new AgentdevelError('HISTORY_INVALID', `${ref}:${file} was written by an agentdevel too old for HTML reports (decision@1)`);
  const diagnosisFile = summary.document.diagnosis ? `${summary.document.diagnosis.folder}/report.json` : null;
  const gradientAt = gradientRef(config, summary.document.iteration);
  // The diagnosis and the gradient records in one git process.
  const texts = await repo.readTexts([`${gradientAt}:${GRADIENT_FILE}`, ...(diagnosisFile ? [`${commit}:${diagnosisFile}`] : [])]);
  const [gradientText = null, diagnosisText = null] = texts;
  const diagnosis = diagnosisText === null ? null : readDiagnosisRecord(diagnosisText, `${ref}:${diagnosisFile}`);
  return {
    ref,
    folder,
    document: summary.document,
    cases: casesText === null ? null : parseCaseEvidence(casesText, `${ref}:${folder}/cases.json`),
    diagnosis: diagnosis?.report ?? null,
    labelMerges: diagnosis?.labelMerges ?? [],
    gradient: gradientText === null ? null : gradientSummary(parseGradientDocument(gradientText, `${gradientAt}:${GRADIENT_FILE}`), gradientAt),
  };
}

/**
 * The decision of release vN, when its commit added it: `releases/<bp>/vN/decision.json` there and
 * not in its first parent. Read with its cases.json in one git process; null when it is not so
 * (a tag made by hand), and the commit's changes then say what it recorded.
 */
async function releaseAdded(workspace: Workspace, commit: string, parent: string, version: number): Promise<{ file: string; texts: Array<string | null> } | null> {
  const folder = `releases/${workspace.config.blueprint}/v${version}`;
  const [decision = null, cases = null, before = null] = await workspace.repo.readTexts([`${commit}:${folder}/decision.json`, `${commit}:${folder}/cases.json`, `${parent}:${folder}/decision.json`]);
  return decision !== null && before === null ? { file: `${folder}/decision.json`, texts: [decision, cases] } : null;
}
