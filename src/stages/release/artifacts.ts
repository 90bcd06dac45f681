import type { CaseEvidenceDocument } from '../../domain/case-evidence.ts';
import { DECISION_SCHEMA, type CaseTest, type DecisionDocument, type GateDecision } from '../../domain/decision.ts';
import type { DiagnosisReport } from '../../domain/diagnosis.ts';
import { attemptsDocument, diagnosisReportDocument, flipsDocument, intentDocument } from '../../domain/git-documents.ts';
import type { Role } from '../../domain/model-port.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { ChangedPath } from '../../git/git.ts';
import { reportTemplate } from '../../report/handlebars-templates.ts';
import { aggregateText } from '../../report/gate-text.ts';
import { renderFlipReportHtml } from '../../report/html/flip-report.ts';
import { renderLineIndexHtml, type ReleasePoint } from '../../report/html/line-index.ts';
import { renderTemplate } from '../../template/handlebars.ts';
import type { CaseSummary } from '../gate/flips.ts';

/** promoted / rejected / pending when recorded in git; accepted / rejected by a dry gate (written to its report folder only). */
export type ReleaseOutcome = 'promoted' | 'rejected' | 'pending' | 'accepted';

export interface DiagnosisEvidence {
  readonly report: DiagnosisReport;
  readonly script: string;
  readonly source: 'generated' | 'builtin';
  readonly attempts: ReadonlyArray<{ readonly ok: boolean; readonly error: string | null }>;
}

/** Everything a release decision rests on; artifacts are a pure function of it. */
export interface ReleaseEvidence {
  readonly iteration: number;
  readonly blueprint: string;
  readonly outcome: ReleaseOutcome;
  /** The tag name of the new release (promoted only). */
  readonly release: string | null;
  readonly candidate: { readonly ref: string; readonly commit: string };
  readonly baseline: { readonly commit: string; readonly label: string; readonly runId: string; readonly recordRunIds: readonly string[] };
  readonly candidateRunId: string;
  /** The runs of fresh trials the gate asked for (both sides). */
  readonly confirmationRunIds: readonly string[];
  /** The identity of the RC's edits (to recognise a repeat), when it came from the synthesizer. */
  readonly fingerprint: string | null;
  readonly decision: GateDecision;
  readonly intent: ChangeIntent | null;
  readonly baselineCases: ReadonlyMap<string, CaseSummary>;
  readonly candidateCases: ReadonlyMap<string, CaseSummary>;
  readonly edits: readonly ChangedPath[];
  /** Each named case with one trial a side and its trace, the run statistics and the blueprint diff (null when nothing ran). */
  readonly cases: CaseEvidenceDocument | null;
  readonly diagnosis: DiagnosisEvidence | null;
  readonly simulated: boolean;
  readonly mockRoles: readonly Role[];
  readonly models: Readonly<Record<string, string>>;
  /** The iteration's model cost and what the critic policy spared (null for a dry gate, which is charged to no iteration). */
  readonly cost: { readonly costUsd: number; readonly skippedCriticCalls: number; readonly savedUsd: number | null } | null;
}

export interface ArtifactFile {
  readonly path: string;
  readonly content: string;
}

const iterationName = (n: number): string => `iter-${String(n).padStart(3, '0')}`;

export function releaseFolder(evidence: { readonly blueprint: string; readonly outcome: ReleaseOutcome | 'declined'; readonly release: string | null; readonly iteration: number }): string {
  if (evidence.outcome === 'promoted' && evidence.release) return `releases/${evidence.blueprint}/${evidence.release.split('/').at(-1) as string}`;
  if (evidence.outcome === 'accepted') return `releases/${evidence.blueprint}/accepted`;
  const kind = evidence.outcome === 'promoted' ? 'rejected' : evidence.outcome;
  return `releases/${evidence.blueprint}/${kind}/${iterationName(evidence.iteration)}`;
}

export function diagnosticsFolder(blueprint: string, iteration: number): string {
  return `diagnostics/${blueprint}/${iterationName(iteration)}`;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** What the critic policy spared this iteration, for its own row of the report (null when nothing). */
function sparedText(cost: ReleaseEvidence['cost']): string | null {
  if (!cost || cost.skippedCriticCalls === 0) return null;
  return `the critic was not asked about ${cost.skippedCriticCalls} case-trials the scorers passed${cost.savedUsd === null ? '' : ` (about $${cost.savedUsd.toFixed(4)} saved)`}`;
}
const short = (sha: string): string => sha.slice(0, 10);

export function decisionDocument(evidence: ReleaseEvidence): DecisionDocument {
  return {
    schema: DECISION_SCHEMA,
    iteration: evidence.iteration,
    blueprint: evidence.blueprint,
    outcome: evidence.outcome,
    release: evidence.release,
    candidate: evidence.candidate,
    baseline: { ...evidence.baseline, recordRunIds: [...evidence.baseline.recordRunIds] },
    candidateRun: { runId: evidence.candidateRunId, confirmationRunIds: [...evidence.confirmationRunIds] },
    gate: evidence.decision,
    intent: evidence.intent,
    fingerprint: evidence.fingerprint,
    simulated: evidence.simulated,
    mockRoles: [...evidence.mockRoles],
    models: { ...evidence.models },
    costUsd: evidence.cost?.costUsd ?? null,
    diagnosis: evidence.diagnosis ? { source: evidence.diagnosis.source, folder: diagnosticsFolder(evidence.blueprint, evidence.iteration) } : null,
    approval: null,
  };
}

function flipRows(ids: readonly string[], cases: ReadonlyMap<string, CaseSummary>, evidence: CaseEvidenceDocument | null, side: 'baseline' | 'candidate') {
  const shown = new Map((evidence?.cases ?? []).map((c) => [c.caseId, c[side].shown]));
  return ids.map((caseId) => ({
    caseId,
    symptom: cases.get(caseId)?.symptom ?? null,
    description: cases.get(caseId)?.description ?? '',
    reason: shown.get(caseId)?.reason ?? null,
  }));
}

const trialsText = (c: { passes: number; graded: number } | undefined): string => (c ? `${c.passes}/${c.graded}` : '-');

const OUTCOME_TEXT: Record<CaseTest['outcome'], string> = {
  confirmed: 'confirmed',
  not_confirmed: 'not confirmed (within noise)',
  stopped_early: 'within noise (stopped early: the fresh trials could no longer reach the level)',
  futile: 'within noise (stopped early: its predicted chance of reaching the level fell below gate.futility)',
  incomplete: 'undecided (infrastructure errors in its fresh trials)',
  unreachable: 'not testable (the corrected level needs more fresh trials than gate.maxConfirmTrials)',
};

/** Each p-value with the question it answers: a regression test asks "worse?", a fix test "better?". */
const pText = (test: CaseTest): string =>
  test.pValue === null
    ? '-'
    : `${test.direction === 'regression' ? 'worse?' : 'better?'} p ${test.pBound === 'at_least' ? '≥' : test.pBound === 'at_most' ? '≤' : '='} ${test.pValue.toPrecision(2)}`;

/** One row per per-case test: the counts it rests on, its p-values and its verdict. */
function evidenceRows(decision: GateDecision) {
  return decision.tests.map((test) => ({
    caseId: test.caseId,
    direction: test.direction,
    screening: `${trialsText(test.screening.baseline)} → ${trialsText(test.screening.candidate)}`,
    confirmation: test.confirmation ? `${trialsText(test.confirmation.baseline)} → ${trialsText(test.confirmation.candidate)}` : '-',
    pValue: pText(test),
    adjusted: test.adjustedPValue === null ? '-' : test.adjustedPValue.toPrecision(2),
    verdict: OUTCOME_TEXT[test.outcome],
  }));
}

/** One row per requirement: the cases it was fixed in, broken in, and still fails in. */
function requirementRows(decision: GateDecision) {
  const flips = decision.requirements;
  if (!flips) return null;
  const ids = [...new Set([...flips.fixed, ...flips.broken, ...flips.stillFailing].map((f) => f.requirement))].sort();
  const cases = (list: ReadonlyArray<{ caseId: string; requirement: string }>, id: string) => list.filter((f) => f.requirement === id).map((f) => `\`${f.caseId}\``).join(', ') || '-';
  return ids.map((id) => ({ id, fixed: cases(flips.fixed, id), broken: cases(flips.broken, id), stillFailing: cases(flips.stillFailing, id) }));
}

function flakyRows(evidence: ReleaseEvidence) {
  const tests = new Map(evidence.decision.tests.map((t) => [t.caseId, t]));
  return evidence.decision.flaky.map((caseId) => {
    const test = tests.get(caseId);
    return {
      caseId,
      before: trialsText(evidence.baselineCases.get(caseId)),
      after: trialsText(evidence.candidateCases.get(caseId)),
      fresh: test?.confirmation ? `${trialsText(test.confirmation.baseline)} → ${trialsText(test.confirmation.candidate)}` : '-',
      counted: test ? OUTCOME_TEXT[test.outcome] : 'moved, not counted (paper-faithful gate)',
    };
  });
}

export function reportTitle(evidence: { readonly outcome: ReleaseOutcome | 'declined'; readonly release: string | null; readonly iteration: number; readonly candidate: { readonly ref: string } }): string {
  switch (evidence.outcome) {
    case 'promoted':
      return `Release ${evidence.release}`;
    case 'pending':
      return `Release candidate for ${evidence.release}, awaiting approval (iteration ${evidence.iteration})`;
    case 'accepted':
      return `Gate: ${evidence.candidate.ref} accepted (not promoted)`;
    case 'declined':
      return `Declined release candidate (${evidence.candidate.ref}, iteration ${evidence.iteration})`;
    case 'rejected':
      return `Rejected release candidate (${evidence.candidate.ref}, iteration ${evidence.iteration})`;
    default: {
      const exhaustive: never = evidence.outcome;
      return exhaustive;
    }
  }
}

/** The earlier releases of the line plus this one, as the index shows them (links relative to releases/<bp>/). */
function lineIndexPoints(history: LineHistory, evidence: ReleaseEvidence, folder: string): { initialPassRate: number | null; releases: ReleasePoint[] } {
  const own: ReleasePoint = {
    release: evidence.release ?? '',
    iteration: evidence.iteration,
    passRate: evidence.decision.passRates.candidate,
    passHat: evidence.cases?.runs.candidate?.passHat ?? { 1: evidence.decision.passRates.candidate },
    f2p: evidence.decision.f2p.length,
    p2f: evidence.decision.p2f.length,
    href: `${folder.split('/').at(-1)}/report.html`,
    simulated: evidence.simulated,
  };
  return { initialPassRate: history.initialPassRate ?? evidence.decision.passRates.baseline, releases: [...history.releases, own] };
}

/** What the line's earlier releases say about themselves (read from git by the pipeline). */
export interface LineHistory {
  readonly initialPassRate: number | null;
  readonly releases: readonly ReleasePoint[];
}

export function buildArtifacts(evidence: ReleaseEvidence, lineHistory: LineHistory | null = null): ArtifactFile[] {
  const folder = releaseFolder(evidence);
  const { decision } = evidence;
  const f2p = flipRows(decision.f2p, evidence.baselineCases, evidence.cases, 'baseline');
  const p2f = flipRows(decision.p2f, evidence.candidateCases, evidence.cases, 'candidate');
  const report = renderTemplate(reportTemplate('flip-report'), {
    title: reportTitle(evidence),
    simulated: evidence.simulated,
    mockRolesText: evidence.mockRoles.length > 0 ? evidence.mockRoles.join(', ') : null,
    outcome: evidence.outcome,
    release: evidence.release,
    iteration: evidence.iteration,
    candidate: { ref: evidence.candidate.ref, short: short(evidence.candidate.commit) },
    baseline: { label: evidence.baseline.label, short: short(evidence.baseline.commit), passRateText: pct(decision.passRates.baseline) },
    candidateRun: { passRateText: pct(decision.passRates.candidate) },
    f2pCount: decision.f2p.length,
    p2fCount: decision.p2f.length,
    screenedText: `${decision.screening.f2p.length} up, ${decision.screening.p2f.length} down`,
    p2fRateText: pct(decision.rates.p2fRate),
    hitRateText: decision.rates.hitRate === null ? 'n/a' : pct(decision.rates.hitRate),
    costText: evidence.cost ? `$${evidence.cost.costUsd.toFixed(4)}` : null,
    criticSparedText: sparedText(evidence.cost),
    checks: decision.checks.filter((c) => c.name !== 'graded' || !c.ok),
    intent: evidence.intent,
    f2p,
    p2f,
    flaky: flakyRows(evidence),
    stochastic: decision.policy === 'stochastic',
    aggregate: { text: aggregateText(decision.aggregate) },
    procedure: decision.procedure,
    power: decision.power?.text ?? [],
    evidence: evidenceRows(decision),
    warnings: decision.warnings,
    layers: decision.layers.map((l) => ({ ...l, vetoed: l.verdict === 'veto' || l.verdict === 'reject', checks: l.layer === 'flips' ? [] : l.checks })),
    traceCostText: decision.cost
      ? `${decision.cost.baseline.toFixed(3)} → ${decision.cost.candidate.toFixed(3)} per case-trial (weights: steps ${decision.cost.weights.steps}, repeated calls ${decision.cost.weights.repeats}, calls that changed no state ${decision.cost.weights.noops})`
      : null,
    compositeText: decision.composite
      ? `${decision.composite.baseline.toFixed(3)} → ${decision.composite.candidate.toFixed(3)} (${Object.entries(decision.composite.weights).map(([k, w]) => `${w}·${k}`).join(' + ')}; reported, never gating)`
      : null,
    requirements: requirementRows(decision),
    violationText: decision.requirements
      ? `${pct(decision.requirements.violationRate.baseline)} → ${pct(decision.requirements.violationRate.candidate)} of case-trials pass their scorers but break a requirement only the critic judges${decision.requirements.violationRate.cases.length ? ` (${decision.requirements.violationRate.cases.join(', ')})` : ''}`
      : null,
    efficiencyText: decision.efficiency?.promoted ? `promoted on efficiency: ${decision.efficiency.better} of ${decision.efficiency.better + decision.efficiency.worse} cases ${decision.efficiency.measure === 'cost' ? 'cost less' : 'score higher'} (one-sided sign test p = ${decision.efficiency.pValue.toFixed(4)})` : null,
    edits: evidence.edits,
    diff: evidence.cases?.diff.trimEnd() ?? '',
    diffTruncated: evidence.cases?.diffTruncated ?? false,
    diagnosis: evidence.diagnosis?.report ?? null,
    diagnosisSource: evidence.diagnosis?.source === 'generated' ? 'generated for this iteration' : 'built-in',
  });
  const document = decisionDocument(evidence);
  const files: ArtifactFile[] = [
    { path: `${folder}/decision.json`, content: `${JSON.stringify(document, null, 2)}\n` },
    { path: `${folder}/flips.json`, content: `${JSON.stringify(flipsDocument({ f2p, p2f, flaky: flakyRows(evidence) }), null, 2)}\n` },
    { path: `${folder}/intent.json`, content: `${JSON.stringify(intentDocument(evidence.intent), null, 2)}\n` },
    { path: `${folder}/report.md`, content: report },
    { path: `${folder}/report.html`, content: renderFlipReportHtml({ title: reportTitle(evidence), document, evidence: evidence.cases, diagnosis: evidence.diagnosis?.report ?? null }) },
  ];
  if (evidence.cases) files.push({ path: `${folder}/cases.json`, content: `${JSON.stringify(evidence.cases, null, 2)}\n` });
  if (lineHistory && evidence.outcome === 'promoted') {
    files.push({ path: `releases/${evidence.blueprint}/index.html`, content: renderLineIndexHtml({ blueprint: evidence.blueprint, ...lineIndexPoints(lineHistory, evidence, folder) }) });
  }
  if (evidence.diagnosis) {
    const dir = diagnosticsFolder(evidence.blueprint, evidence.iteration);
    files.push(
      { path: `${dir}/diagnosis.mjs`, content: evidence.diagnosis.script },
      { path: `${dir}/report.json`, content: `${JSON.stringify(diagnosisReportDocument(evidence.diagnosis.report), null, 2)}\n` },
      { path: `${dir}/attempts.json`, content: `${JSON.stringify(attemptsDocument({ source: evidence.diagnosis.source, attempts: [...evidence.diagnosis.attempts] }), null, 2)}\n` },
    );
  }
  return files;
}

type TagSubject = Pick<ReleaseEvidence, 'release' | 'decision' | 'intent' | 'simulated' | 'blueprint' | 'iteration'> & {
  readonly baseline: { readonly commit: string };
  readonly candidate: { readonly commit: string };
  /** The edited paths, when known (an approved release is tagged from its decision document, which lists none). */
  readonly edits?: readonly ChangedPath[];
};

function flipSummary(evidence: Pick<ReleaseEvidence, 'decision'>): string {
  const { decision } = evidence;
  return `${decision.f2p.length} fixed (F→P), ${decision.p2f.length} regressed (P→F); pass rate ${pct(decision.passRates.baseline)} → ${pct(decision.passRates.candidate)}`;
}

/** The annotated tag's message: what the release changed, in flips. */
export function tagMessage(evidence: TagSubject): string {
  const lines = [
    `${evidence.release}: ${flipSummary(evidence)}`,
    '',
    `Intent: ${evidence.intent ? `${evidence.intent.targets.join(', ')}: ${evidence.intent.rationale}` : 'none given'}`,
    `Fixed: ${evidence.decision.f2p.join(', ') || 'none'}`,
    `Regressed: ${evidence.decision.p2f.join(', ') || 'none'}`,
    ...(evidence.decision.flaky.length > 0 ? [`Moved within noise: ${evidence.decision.flaky.join(', ')}`] : []),
    ...(evidence.decision.efficiency?.promoted ? [`Promoted on efficiency: ${evidence.decision.efficiency.better} of ${evidence.decision.efficiency.better + evidence.decision.efficiency.worse} cases better (p = ${evidence.decision.efficiency.pValue.toFixed(4)})`] : []),
    // `git show <tag>` shows the release commit (reports); the change itself is in its parent, the RC.
    `Change: git diff ${short(evidence.baseline.commit)} ${short(evidence.candidate.commit)} -- blueprints/${evidence.blueprint}/${evidence.edits ? ` (${evidence.edits.map((e) => `${e.status} ${e.path}`).join(', ') || 'no edits'})` : ''}`,
    `Report: ${releaseFolder({ ...evidence, outcome: 'promoted' })}/report.md (and report.html: \`agentdevel report ${evidence.release}\`)`,
  ];
  if (evidence.simulated) lines.push('', 'Simulation: produced by the mock engine, not a language model.');
  return `${lines.join('\n')}\n`;
}

export function releaseCommitMessage(evidence: ReleaseEvidence): string {
  const head = {
    promoted: `agentdevel: release ${evidence.release} (iteration ${evidence.iteration})`,
    pending: `agentdevel: hold release candidate (iteration ${evidence.iteration}) for approval as ${evidence.release}`,
    rejected: `agentdevel: reject release candidate (iteration ${evidence.iteration})`,
    accepted: `agentdevel: ${evidence.candidate.ref} passes the gate (a dry gate: not recorded)`,
  }[evidence.outcome];
  return `${head}\n\n${flipSummary(evidence)}\n${evidence.decision.reasons.map((r) => `- ${r}`).join('\n')}\n${evidence.simulated ? '\nSimulation: produced by the mock engine.\n' : ''}`;
}
