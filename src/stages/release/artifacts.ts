import type { CaseEvidenceDocument } from '../../domain/case-evidence.ts';
import type { CreditDocument } from '../../domain/credit.ts';
import { ATTRIBUTION_FILE, type AttributionDocument } from '../../domain/attribution.ts';
import type { GradientSummary } from '../../domain/gradient.ts';
import { DECISION_SCHEMA, type CaseTest, type DecisionDocument, type GateDecision, type ReleaseOutcome } from '../../domain/decision.ts';
import type { DiagnosisReport } from '../../domain/diagnosis.ts';
import type { LabelMergeProposal } from '../../domain/label-aliases.ts';
import { RUNS_FILE, type RunsDocument } from '../../domain/run-summary-document.ts';
import { TAXONOMY_FILE, type TaxonomyDocument } from '../../domain/taxonomy-document.ts';
import { attemptsDocument, diagnosisReportDocument, flipsDocument, intentDocument, synthesisAttemptsDocument } from '../../domain/git-documents.ts';
import type { Role } from '../../domain/ports/model.ts';
import { editsByType, intentText, type ChangeIntent } from '../../domain/release-candidate.ts';
import type { ChangedPath } from '../../domain/changed-path.ts';
import type { Ablation } from '../../domain/ablation.ts';
import type { HumanChange } from '../../domain/human-change.ts';
import { aggregateText } from '../report/gate-text.ts';
import { renderFlipReportHtml, type ReportRendering } from '../report/html/flip-report.ts';
import { renderLineIndexHtml, type ReleasePoint } from '../report/html/line-index.ts';
import type { ReportTemplates } from '../../domain/ports/report-templates.ts';
import { mdCode, mdCodeBlock, mdText } from '../report/escape/markdown.ts';
import { commitText } from '../report/escape/commit-message.ts';
import { decisionHeadline } from '../report/headline.ts';
import { renderChangelog, type ChangelogEntry } from '../report/changelog.ts';
import { changeLines } from '../report/change-text.ts';
import type { CaseSummary } from '../gate/flips.ts';

// The report's title lives apart from the templates: `report` needs it alone.
import { reportTitle } from './outcome.ts';
import { decisionRow } from '../report/decision-row.ts';
export { reportTitle };

export interface DiagnosisEvidence {
  readonly report: DiagnosisReport;
  readonly script: string;
  readonly source: 'generated' | 'builtin';
  readonly attempts: ReadonlyArray<{ readonly ok: boolean; readonly error: string | null }>;
  /** The synthesizer's refused attempts of the iteration, each with what was wrong (its repairs). */
  readonly synthesisAttempts?: readonly string[];
  /** Merges of synonym labels the diagnostician proposed and the loop recorded as aliases. */
  readonly labelMerges?: readonly LabelMergeProposal[];
}

/** Everything a release decision rests on; artifacts are a pure function of it. */
export interface ReleaseEvidence {
  readonly iteration: number;
  readonly blueprint: string;
  readonly outcome: ReleaseOutcome;
  /** The tag name of the new release (promoted only). */
  readonly release: string | null;
  /** The candidate as the gate saw it: its commit, that commit's tree and first parent (what `approve` checks it promotes). */
  readonly candidate: { readonly ref: string; readonly commit: string; readonly tree: string; readonly parent: string | null };
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
  /** The iteration's credit per component (absent outside the loop). */
  readonly credit?: CreditDocument | null;
  /** The iteration's gradient records, summarized: where they are and how many model-phrased claims were dropped (absent outside the loop). */
  readonly gradient?: GradientSummary | null;
  /** The ablation this decision ran under (scratch lines only), or null. */
  readonly ablation?: Ablation | null;
  /** Which edit each regression of a rejected RC depends on (attribution.onRejection), or null. */
  readonly attribution?: AttributionDocument | null;
  readonly simulated: boolean;
  readonly mockRoles: readonly Role[];
  readonly models: Readonly<Record<string, string>>;
  /** The iteration's model cost and what the critic policy spared (null for a dry gate, which is charged to no iteration). */
  readonly cost: { readonly costUsd: number; readonly skippedCriticCalls: number; readonly reusedCriticCalls?: number; readonly savedUsd: number | null } | null;
  /** Where the baseline's screen came from (reused from git, from the store, or run now), in words. */
  readonly screenText?: string | null;
  /** What a person's change touches beyond the blueprint, and how the gate treated it (null: the blueprint alone). */
  readonly change?: HumanChange | null;
  /** What a clone rebuilds its store from: the runs the gate used and the taxonomy as it stood (absent for a dry gate). */
  readonly record?: { readonly runs: RunsDocument; readonly taxonomy: TaxonomyDocument } | null;
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

/** The critic calls not made this iteration (policy, and identical traces judged once), for their own row of the report (null when none). */
function sparedText(cost: ReleaseEvidence['cost']): string | null {
  const reused = cost?.reusedCriticCalls ?? 0;
  if (!cost || cost.skippedCriticCalls + reused === 0) return null;
  const parts = [
    ...(cost.skippedCriticCalls > 0 ? [`the critic was not asked about ${cost.skippedCriticCalls} case-trials the scorers passed`] : []),
    ...(reused > 0 ? [`${reused} calls saved by judging identical traces once`] : []),
  ];
  return `${parts.join('; ')}${cost.savedUsd === null ? '' : ` (about $${cost.savedUsd.toFixed(4)} saved)`}`;
}
const short = (sha: string): string => sha.slice(0, 10);

export function decisionDocument(evidence: ReleaseEvidence): DecisionDocument {
  return {
    schema: DECISION_SCHEMA,
    iteration: evidence.iteration,
    blueprint: evidence.blueprint,
    outcome: evidence.outcome,
    release: evidence.release,
    candidate: { ...evidence.candidate },
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
    ablation: evidence.ablation ?? null,
    change: evidence.change ?? null,
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
  const cases = (list: ReadonlyArray<{ caseId: string; requirement: string }>, id: string) => list.filter((f) => f.requirement === id).map((f) => mdCode(f.caseId, { table: true })).join(', ') || '-';
  return ids.map((id) => ({ id: mdCode(id, { table: true }), fixed: cases(flips.fixed, id), broken: cases(flips.broken, id), stillFailing: cases(flips.stillFailing, id) }));
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

/** One release as the line's index shows it (`folder`: its releases/<bp>/<folder>, where its report is). */
export function releasePoint(
  release: Pick<ReleaseEvidence, 'release' | 'iteration' | 'decision' | 'intent' | 'simulated'> & { readonly runs: CaseEvidenceDocument['runs'] | null },
  folder: string,
  approval: { readonly date: string | null; readonly approvedBy: string | null },
): ReleasePoint {
  const candidateRun = release.runs?.candidate ?? null;
  return {
    release: release.release ?? '',
    iteration: release.iteration,
    passRate: release.decision.passRates.candidate,
    passHat: candidateRun?.passHat ?? { 1: release.decision.passRates.candidate },
    f2p: release.decision.f2p.length,
    p2f: release.decision.p2f.length,
    href: `${folder.split('/').at(-1)}/report.html`,
    simulated: release.simulated,
    date: approval.date,
    intent: release.intent ? intentText(release.intent) : null,
    approvedBy: approval.approvedBy,
    caseTrials: candidateRun ? candidateRun.cases * candidateRun.trials : null,
    testSplit: null,
  };
}

/** The earlier releases of the line plus this one, as the index shows them (links relative to releases/<bp>/). */
function lineIndexPoints(history: LineHistory, evidence: ReleaseEvidence, folder: string): { initialPassRate: number | null; releases: ReleasePoint[] } {
  const own = releasePoint({ ...evidence, runs: evidence.cases?.runs ?? null }, folder, { date: null, approvedBy: null });
  return { initialPassRate: history.initialPassRate ?? evidence.decision.passRates.baseline, releases: [...history.releases, own] };
}

/** What the line's earlier releases say about themselves (read from git by the pipeline). */
export interface LineHistory {
  readonly initialPassRate: number | null;
  readonly releases: readonly ReleasePoint[];
  /** The earlier releases' changelog entries (CHANGELOG.md). */
  readonly changelog?: readonly ChangelogEntry[];
  /** The date (YYYY-MM-DD) of this release's candidate commit, for its changelog entry. */
  readonly candidateDate?: string | null;
}

/** This release's changelog entry, from its evidence. */
export function changelogEntry(evidence: Pick<ReleaseEvidence, 'release' | 'intent' | 'decision' | 'simulated'>, date: string | null, approvedBy: string | null): ChangelogEntry {
  return { release: evidence.release ?? '', date, intent: evidence.intent, f2p: [...evidence.decision.f2p], p2f: [...evidence.decision.p2f], approvedBy, simulated: evidence.simulated };
}

/** The intent's typed edits, one row per type that has any (remove, revise, add). */
function typedEditRows(intent: ChangeIntent | null): Array<{ type: string; components: string[] }> | null {
  if (!intent?.edits?.length) return null;
  return Object.entries(editsByType(intent.edits))
    .filter(([, components]) => components.length > 0)
    .map(([type, components]) => ({ type, components }));
}

/** What the artifacts are rendered with: the text comparison of the HTML report, and the report templates (report.md). */
export interface ArtifactRendering extends ReportRendering {
  readonly templates: ReportTemplates;
}

export function buildArtifacts(evidence: ReleaseEvidence, rendering: ArtifactRendering, lineHistory: LineHistory | null = null): ArtifactFile[] {
  const folder = releaseFolder(evidence);
  const { decision } = evidence;
  const f2p = flipRows(decision.f2p, evidence.baselineCases, evidence.cases, 'baseline');
  const p2f = flipRows(decision.p2f, evidence.candidateCases, evidence.cases, 'candidate');
  const document = decisionDocument(evidence);
  const headline = decisionHeadline(document, evidence.cases);
  // report.md is GitHub markdown, and its template does not escape: every piece of text that is
  // not agentdevel's own goes through escape/markdown.ts here (flips.json keeps the raw rows).
  const cell = (text: string | null | undefined): string => mdText(text ?? '');
  const code = (text: string): string => mdCode(text, { table: true });
  const mdFlipRow = (row: ReturnType<typeof flipRows>[number]) => ({ caseId: code(row.caseId), symptom: row.symptom ? code(row.symptom) : null, description: cell(row.description), reason: cell(row.reason) });
  const mdChecks = (checks: readonly GateDecision['checks'][number][]) => checks.map((c) => ({ ...c, message: cell(c.message) }));
  const report = rendering.templates('flip-report', {
    title: mdText(reportTitle(evidence, evidence.record !== null && evidence.record !== undefined)),
    headline: { outcome: cell(headline.outcome), reasons: headline.reasons.map(cell) },
    simulated: evidence.simulated,
    mockRolesText: evidence.mockRoles.length > 0 ? evidence.mockRoles.join(', ') : null,
    decisionRow: decisionRow(document),
    // A dry gate is no iteration of the line: its report names none.
    iteration: evidence.record ? evidence.iteration : null,
    candidate: { ref: code(evidence.candidate.ref), short: short(evidence.candidate.commit) },
    baseline: { label: cell(evidence.baseline.label), short: short(evidence.baseline.commit), passRateText: pct(decision.passRates.baseline) },
    candidateRun: { passRateText: pct(decision.passRates.candidate) },
    screenText: evidence.screenText ?? null,
    changeLines: changeLines(evidence.change ?? null).map(cell),
    f2pCount: decision.f2p.length,
    p2fCount: decision.p2f.length,
    screenedText: `${decision.screening.f2p.length} up, ${decision.screening.p2f.length} down`,
    p2fRateText: pct(decision.rates.p2fRate),
    hitRateText: decision.rates.hitRate === null ? 'n/a' : pct(decision.rates.hitRate),
    costText: evidence.cost ? `$${evidence.cost.costUsd.toFixed(4)}` : null,
    criticSparedText: sparedText(evidence.cost),
    checks: mdChecks(decision.checks.filter((c) => c.name !== 'graded' || !c.ok)),
    intent: evidence.intent ? { targets: evidence.intent.targets.map((t) => mdCode(t)), rationale: cell(evidence.intent.rationale) } : null,
    f2p: f2p.map(mdFlipRow),
    p2f: p2f.map(mdFlipRow),
    flaky: flakyRows(evidence).map((row) => ({ ...row, caseId: code(row.caseId) })),
    editsByType: typedEditRows(evidence.intent),
    editsInferred: evidence.intent?.editsInferred === true,
    ablation: evidence.ablation ?? null,
    stochastic: decision.policy === 'stochastic',
    aggregate: { text: aggregateText(decision.aggregate) },
    procedure: { text: cell(decision.procedure.text), guarantee: decision.procedure.guarantee ? cell(decision.procedure.guarantee) : null },
    power: (decision.power?.text ?? []).map(cell),
    evidence: evidenceRows(decision).map((row) => ({ ...row, caseId: code(row.caseId) })),
    warnings: decision.warnings.map(cell),
    layers: decision.layers.map((l) => ({
      ...l,
      vetoed: l.verdict === 'veto' || l.verdict === 'reject',
      checks: l.layer === 'flips' ? [] : mdChecks(l.checks),
      violations: (l.violations ?? []).map((v) => ({ requirement: mdCode(v.requirement), caseId: mdCode(v.caseId), reason: cell(v.reason) })),
    })),
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
    edits: evidence.edits.map((e) => ({ status: mdCode(e.status), path: mdCode(e.path) })),
    diff: evidence.cases?.diff.trim() ? mdCodeBlock(evidence.cases.diff.trimEnd(), 'diff') : '',
    diffTruncated: evidence.cases?.diffTruncated ?? false,
    diagnosis: evidence.diagnosis
      ? {
          summary: cell(evidence.diagnosis.report.summary),
          dominantSymptoms: evidence.diagnosis.report.dominantSymptoms.map((d) => ({ label: code(d.label), count: d.count, share: d.share })),
          labelMerges: (evidence.diagnosis.labelMerges ?? []).map((m) => ({ labels: m.labels.filter((l) => l !== m.into).map((l) => mdCode(l)).join(', '), into: mdCode(m.into), reason: cell(m.reason), evidence: m.evidence.map((id) => mdCode(id)).join(', ') })),
        }
      : null,
    diagnosisSource: evidence.diagnosis?.source === 'generated' ? 'generated for this iteration' : 'built-in',
    credit: evidence.credit ? creditView(evidence.credit) : null,
    gradient: evidence.gradient
      ? {
          ref: mdCode(evidence.gradient.ref),
          records: evidence.gradient.records,
          kept: evidence.gradient.kept,
          dropped: evidence.gradient.dropped,
          droppedClaims: evidence.gradient.droppedClaims.map((c) => ({ component: code(c.component), text: cell(c.text), reason: cell(c.reason) })),
        }
      : null,
  });
  const files: ArtifactFile[] = [
    { path: `${folder}/decision.json`, content: `${JSON.stringify(document, null, 2)}\n` },
    { path: `${folder}/flips.json`, content: `${JSON.stringify(flipsDocument({ f2p, p2f, flaky: flakyRows(evidence) }), null, 2)}\n` },
    { path: `${folder}/intent.json`, content: `${JSON.stringify(intentDocument(evidence.intent), null, 2)}\n` },
    { path: `${folder}/report.md`, content: report },
    { path: `${folder}/report.html`, content: renderFlipReportHtml({ title: reportTitle(evidence, evidence.record !== null && evidence.record !== undefined), document, evidence: evidence.cases, diagnosis: evidence.diagnosis?.report ?? null, gradient: evidence.gradient ?? null, labelMerges: evidence.diagnosis?.labelMerges ?? [] }, rendering) },
  ];
  if (evidence.cases) files.push({ path: `${folder}/cases.json`, content: `${JSON.stringify(evidence.cases, null, 2)}\n` });
  if (evidence.record) {
    // One line per case-trial keeps these large documents diffable and their size near the data's.
    files.push(
      { path: `${folder}/${RUNS_FILE}`, content: runsText(evidence.record.runs) },
      { path: `${folder}/${TAXONOMY_FILE}`, content: `${JSON.stringify(evidence.record.taxonomy, null, 2)}\n` },
    );
  }
  if (lineHistory && evidence.outcome === 'promoted') {
    files.push({ path: `releases/${evidence.blueprint}/index.html`, content: renderLineIndexHtml({ blueprint: evidence.blueprint, ...lineIndexPoints(lineHistory, evidence, folder) }) });
    const entries = [...(lineHistory.changelog ?? []), changelogEntry(evidence, lineHistory.candidateDate ?? null, null)];
    files.push({ path: `releases/${evidence.blueprint}/CHANGELOG.md`, content: renderChangelog(evidence.blueprint, entries) });
  }
  if (evidence.attribution) {
    files.push({ path: `${diagnosticsFolder(evidence.blueprint, evidence.iteration)}/${ATTRIBUTION_FILE}`, content: `${JSON.stringify(evidence.attribution, null, 2)}\n` });
  }
  if (evidence.credit) {
    files.push({ path: `${diagnosticsFolder(evidence.blueprint, evidence.iteration)}/credit.json`, content: `${JSON.stringify(evidence.credit, null, 2)}\n` });
  }
  if (evidence.diagnosis) {
    const dir = diagnosticsFolder(evidence.blueprint, evidence.iteration);
    files.push(
      { path: `${dir}/diagnosis.mjs`, content: evidence.diagnosis.script },
      { path: `${dir}/report.json`, content: `${JSON.stringify(diagnosisReportDocument(evidence.diagnosis.report, evidence.diagnosis.labelMerges ?? []), null, 2)}\n` },
      { path: `${dir}/attempts.json`, content: `${JSON.stringify(attemptsDocument({ source: evidence.diagnosis.source, attempts: [...evidence.diagnosis.attempts] }), null, 2)}\n` },
    );
    const repairs = evidence.diagnosis.synthesisAttempts ?? [];
    if (repairs.length > 0) files.push({ path: `${dir}/synthesis-attempts.json`, content: `${JSON.stringify(synthesisAttemptsDocument(repairs), null, 2)}\n` });
  }
  return files;
}

/** runs.json: the runs' identities indented, each case-trial on one line. */
function runsText(document: RunsDocument): string {
  const runs = document.runs.map((run) => {
    const { records, ...identity } = run;
    const head = JSON.stringify(identity, null, 2).replace(/\n}$/, '').replace(/\n/g, '\n    ');
    const rows = records.map((record) => `        ${JSON.stringify(record)}`).join(',\n');
    return `    ${head},\n      "records": [\n${rows}\n      ]\n    }`;
  });
  return `{\n  "schema": ${JSON.stringify(document.schema)},\n  "runs": [\n${runs.join(',\n')}\n  ]\n}\n`;
}

const rate = (x: number | null | undefined): string => (x === null || x === undefined ? '-' : pct(x));

/** The credit table as the report shows it: one row per component, both rankings side by side. */
function creditView(credit: CreditDocument) {
  const place = (list: readonly string[], name: string): string => (list.includes(name) ? String(list.indexOf(name) + 1) : '-');
  return {
    folder: `${diagnosticsFolder(credit.blueprint, credit.iteration)}/credit.json`,
    judge: credit.judge.enabled ? `the ${credit.judge.model} judge gave a hindsight verdict on every call of a member or tool wrapper (${credit.judge.calls} requests)` : 'the helpfulness judge is off (credit.helpfulness)',
    lastRc: credit.lastRc ? `iteration ${credit.lastRc.iteration}: ${credit.lastRc.fixed.length} F→P, ${credit.lastRc.broken.length} P→F` : null,
    freeRiderRule: `success rate ≥ ${pct(credit.freeRider.minSuccessRate)} and helpfulness ≤ ${pct(credit.freeRider.maxHelpfulness)}`,
    simulated: credit.simulated,
    rows: credit.components.map((c) => ({
      ...c,
      successText: rate(c.successRate),
      helpfulText: c.helpfulness ? `${rate(c.helpfulness.rate)} (${c.helpfulness.helpful}/${c.helpfulness.judged})` : '-',
      helpfulnessRank: place(credit.ranking.byHelpfulness, c.name),
      successRank: place(credit.ranking.bySuccessRate, c.name),
    })),
  };
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

/** The annotated tag's message: what the release changed, in flips. User text goes through commitText (one line each, no forged trailer). */
export function tagMessage(evidence: TagSubject): string {
  const t = commitText;
  const ids = (list: readonly string[]): string => list.map(t).join(', ');
  const lines = [
    `${t(evidence.release ?? '')}: ${flipSummary(evidence)}`,
    '',
    `Intent: ${evidence.intent ? intentText({ targets: evidence.intent.targets.map(t), rationale: t(evidence.intent.rationale) }) : 'none given'}`,
    `Fixed: ${ids(evidence.decision.f2p) || 'none'}`,
    `Regressed: ${ids(evidence.decision.p2f) || 'none'}`,
    ...(evidence.decision.flaky.length > 0 ? [`Moved within noise: ${ids(evidence.decision.flaky)}`] : []),
    ...(evidence.decision.efficiency?.promoted ? [`Promoted on efficiency: ${evidence.decision.efficiency.better} of ${evidence.decision.efficiency.better + evidence.decision.efficiency.worse} cases better (p = ${evidence.decision.efficiency.pValue.toFixed(4)})`] : []),
    // `git show <tag>` shows the release commit (reports); the change itself is in its parent, the RC.
    `Change: git diff ${short(evidence.baseline.commit)} ${short(evidence.candidate.commit)} -- blueprints/${t(evidence.blueprint)}/${evidence.edits ? ` (${evidence.edits.map((e) => `${e.status} ${t(e.path)}`).join(', ') || 'no edits'})` : ''}`,
    `Report: ${t(releaseFolder({ ...evidence, outcome: 'promoted' }))}/report.md (and report.html: \`agentdevel report ${t(evidence.release ?? '')}\`)`,
  ];
  if (evidence.simulated) lines.push('', 'Simulation: produced by the mock engine, not a language model.');
  return `${lines.join('\n')}\n`;
}

export function releaseCommitMessage(evidence: ReleaseEvidence): string {
  const t = commitText;
  const head = {
    promoted: `agentdevel: release ${t(evidence.release ?? '')} (iteration ${evidence.iteration})`,
    pending: `agentdevel: hold release candidate (iteration ${evidence.iteration}) for approval as ${t(evidence.release ?? '')}`,
    rejected: `agentdevel: reject release candidate (iteration ${evidence.iteration})`,
    accepted: `agentdevel: ${t(evidence.candidate.ref)} passes the gate (dry gate: nothing recorded)`,
  }[evidence.outcome];
  return `${head}\n\n${flipSummary(evidence)}\n${evidence.decision.reasons.map((r) => `- ${t(r)}`).join('\n')}\n${evidence.simulated ? '\nSimulation: produced by the mock engine.\n' : ''}`;
}
