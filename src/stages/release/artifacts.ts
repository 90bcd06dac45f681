import type { DiagnosisReport } from '../../domain/diagnosis.ts';
import type { ChangeIntent } from '../../domain/release-candidate.ts';
import type { ChangedPath } from '../../git/git.ts';
import { reportTemplate } from '../../report/handlebars-templates.ts';
import { renderTemplate } from '../../template/handlebars.ts';
import type { CaseSummary } from '../gate/flips.ts';
import type { GateDecision } from '../gate/gate.ts';

export type ReleaseOutcome = 'promoted' | 'rejected';

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
  readonly baseline: { readonly commit: string; readonly label: string; readonly runId: string };
  readonly candidateRunId: string;
  /** The identity of the RC's edits (to recognise a repeat), when it came from the synthesizer. */
  readonly fingerprint: string | null;
  readonly decision: GateDecision;
  readonly intent: ChangeIntent | null;
  readonly baselineCases: ReadonlyMap<string, CaseSummary>;
  readonly candidateCases: ReadonlyMap<string, CaseSummary>;
  readonly edits: readonly ChangedPath[];
  readonly diagnosis: DiagnosisEvidence | null;
  readonly simulated: boolean;
  readonly models: Readonly<Record<string, string>>;
  readonly costUsd: number | null;
}

export interface ArtifactFile {
  readonly path: string;
  readonly content: string;
}

const iterationName = (n: number): string => `iter-${String(n).padStart(3, '0')}`;

export function releaseFolder(evidence: Pick<ReleaseEvidence, 'blueprint' | 'outcome' | 'release' | 'iteration'>): string {
  if (evidence.outcome === 'promoted' && evidence.release) {
    const version = evidence.release.split('/').at(-1) as string;
    return `releases/${evidence.blueprint}/${version}`;
  }
  return `releases/${evidence.blueprint}/rejected/${iterationName(evidence.iteration)}`;
}

export function diagnosticsFolder(blueprint: string, iteration: number): string {
  return `diagnostics/${blueprint}/${iterationName(iteration)}`;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const short = (sha: string): string => sha.slice(0, 10);

export function decisionDocument(evidence: ReleaseEvidence): Record<string, unknown> {
  const { decision } = evidence;
  return {
    schema: 'agentdevel/decision@1',
    iteration: evidence.iteration,
    blueprint: evidence.blueprint,
    outcome: evidence.outcome,
    release: evidence.release,
    candidate: evidence.candidate,
    baseline: { ...evidence.baseline, passRate: decision.baselinePassRate },
    candidateRun: { runId: evidence.candidateRunId, passRate: decision.candidatePassRate },
    f2p: decision.f2p,
    p2f: decision.p2f,
    flaky: decision.flaky,
    policy: decision.policy,
    significant: decision.significant,
    pValue: decision.pValue,
    rates: { p2fRate: decision.p2fRate, f2pRate: decision.f2pRate, hitRate: decision.hitRate },
    checks: decision.checks,
    reasons: decision.reasons,
    intent: evidence.intent,
    fingerprint: evidence.fingerprint,
    simulated: evidence.simulated,
    models: evidence.models,
    costUsd: evidence.costUsd,
    diagnosis: evidence.diagnosis ? { source: evidence.diagnosis.source, folder: diagnosticsFolder(evidence.blueprint, evidence.iteration) } : null,
  };
}

function flipRows(ids: readonly string[], cases: ReadonlyMap<string, CaseSummary>) {
  return ids.map((caseId) => ({ caseId, symptom: cases.get(caseId)?.symptom ?? null, description: cases.get(caseId)?.description ?? '' }));
}

const trialsText = (c: CaseSummary | undefined): string => (c ? `${c.passes}/${c.graded}` : '-');

function flakyRows(evidence: ReleaseEvidence) {
  return evidence.decision.flaky.map((caseId) => ({
    caseId,
    before: trialsText(evidence.baselineCases.get(caseId)),
    after: trialsText(evidence.candidateCases.get(caseId)),
    counted: evidence.decision.significant.regressions.includes(caseId) ? 'significant drop: counted as a regression' : evidence.decision.significant.fixes.includes(caseId) ? 'significant rise: counted as a fix' : 'within noise',
  }));
}

export function buildArtifacts(evidence: ReleaseEvidence): ArtifactFile[] {
  const folder = releaseFolder(evidence);
  const { decision } = evidence;
  const f2p = flipRows(decision.f2p, evidence.baselineCases);
  const p2f = flipRows(decision.p2f, evidence.candidateCases);
  const report = renderTemplate(reportTemplate('flip-report'), {
    title: evidence.outcome === 'promoted' ? `Release ${evidence.release}` : `Rejected release candidate (iteration ${evidence.iteration})`,
    simulated: evidence.simulated,
    outcome: evidence.outcome,
    release: evidence.release,
    iteration: evidence.iteration,
    candidate: { ref: evidence.candidate.ref, short: short(evidence.candidate.commit) },
    baseline: { label: evidence.baseline.label, short: short(evidence.baseline.commit), passRateText: pct(decision.baselinePassRate) },
    candidateRun: { passRateText: pct(decision.candidatePassRate) },
    f2pCount: decision.f2p.length,
    p2fCount: decision.p2f.length,
    p2fRateText: pct(decision.p2fRate),
    hitRateText: decision.hitRate === null ? 'n/a' : pct(decision.hitRate),
    costText: evidence.costUsd === null ? null : `$${evidence.costUsd.toFixed(4)}`,
    checks: decision.checks.filter((c) => c.name !== 'graded' || !c.ok),
    intent: evidence.intent,
    f2p,
    p2f,
    flaky: flakyRows(evidence),
    stochastic: evidence.decision.policy === 'stochastic',
    pValueText: evidence.decision.pValue.toFixed(4),
    edits: evidence.edits,
    diagnosis: evidence.diagnosis?.report ?? null,
    diagnosisSource: evidence.diagnosis?.source === 'generated' ? 'generated for this iteration' : 'built-in',
  });
  const files: ArtifactFile[] = [
    { path: `${folder}/decision.json`, content: `${JSON.stringify(decisionDocument(evidence), null, 2)}\n` },
    { path: `${folder}/flips.json`, content: `${JSON.stringify({ f2p, p2f, flaky: flakyRows(evidence) }, null, 2)}\n` },
    { path: `${folder}/intent.json`, content: `${JSON.stringify(evidence.intent, null, 2)}\n` },
    { path: `${folder}/report.md`, content: report },
  ];
  if (evidence.diagnosis) {
    const dir = diagnosticsFolder(evidence.blueprint, evidence.iteration);
    files.push(
      { path: `${dir}/diagnosis.mjs`, content: evidence.diagnosis.script },
      { path: `${dir}/report.json`, content: `${JSON.stringify(evidence.diagnosis.report, null, 2)}\n` },
      { path: `${dir}/attempts.json`, content: `${JSON.stringify({ source: evidence.diagnosis.source, attempts: evidence.diagnosis.attempts }, null, 2)}\n` },
    );
  }
  return files;
}

function flipSummary(evidence: ReleaseEvidence): string {
  const { decision } = evidence;
  return `${decision.f2p.length} fixed (F→P), ${decision.p2f.length} regressed (P→F); pass rate ${pct(decision.baselinePassRate)} → ${pct(decision.candidatePassRate)}`;
}

/** The annotated tag's message: what the release changed, in flips. */
export function tagMessage(evidence: ReleaseEvidence): string {
  const lines = [
    `${evidence.release}: ${flipSummary(evidence)}`,
    '',
    `Intent: ${evidence.intent ? `${evidence.intent.targets.join(', ')}: ${evidence.intent.rationale}` : 'none given'}`,
    `Fixed: ${evidence.decision.f2p.join(', ') || 'none'}`,
    `Regressed: ${evidence.decision.p2f.join(', ') || 'none'}`,
    ...(evidence.decision.flaky.length > 0 ? [`Flaky (changed within noise): ${evidence.decision.flaky.join(', ')}`] : []),
    `Report: ${releaseFolder(evidence)}/report.md`,
  ];
  if (evidence.simulated) lines.push('', 'Simulation: produced by the mock engine, not a language model.');
  return `${lines.join('\n')}\n`;
}

export function releaseCommitMessage(evidence: ReleaseEvidence): string {
  const head =
    evidence.outcome === 'promoted'
      ? `agentdevel: release ${evidence.release} (iteration ${evidence.iteration})`
      : `agentdevel: reject release candidate (iteration ${evidence.iteration})`;
  return `${head}\n\n${flipSummary(evidence)}\n${evidence.decision.reasons.map((r) => `- ${r}`).join('\n')}\n${evidence.simulated ? '\nSimulation: produced by the mock engine.\n' : ''}`;
}
