import { editsByType } from '../../../domain/release-candidate.ts';
import type { CaseEvidenceDocument, SideEvidence, TrialEvidence } from '../../../domain/case-evidence.ts';
import type { TextDiff } from '../../../domain/ports/text-diff.ts';
import type { CaseTest, DecisionDocument } from '../../../domain/decision.ts';
import type { DiagnosisReport } from '../../../domain/diagnosis.ts';
import type { GradientSummary } from '../../../domain/gradient.ts';
import type { LabelMergeProposal } from '../../../domain/label-aliases.ts';
import type { ScorerCheck } from '../../../domain/record.ts';
import type { TraceEvent } from '../../../domain/trace.ts';
import { flipReasons } from '../case-reasons.ts';
import { aggregateText } from '../gate-text.ts';
import { decisionHeadline } from '../headline.ts';
import { changeLines } from '../change-text.ts';
import { caseBrowser, caseRows, CLASS_TEXT, type CaseRow } from './case-table.ts';
import { esc, page, pct, pre } from './escape.ts';
import { outputsSideBySide } from './output-diff.ts';

export interface FlipReportPage {
  readonly title: string;
  readonly document: DecisionDocument;
  readonly evidence: CaseEvidenceDocument | null;
  readonly diagnosis: DiagnosisReport | null;
  /** The iteration's gradient records, summarized (null outside the loop, or before they existed). */
  readonly gradient?: GradientSummary | null;
  /** Merges of synonym labels the diagnostician proposed, recorded as aliases. */
  readonly labelMerges?: readonly LabelMergeProposal[];
}

/** The ports a report needs: the comparison that highlights where two outputs differ. */
export interface ReportRendering {
  readonly textDiff: TextDiff;
}

const OUTCOME_TEXT: Record<CaseTest['outcome'], string> = {
  confirmed: 'confirmed',
  not_confirmed: 'not confirmed (within noise)',
  stopped_early: 'within noise (stopped early)',
  futile: 'within noise (stopped for futility)',
  incomplete: 'undecided (infrastructure errors)',
  unreachable: 'not testable at the corrected level',
};

function traceEvent(event: TraceEvent): string {
  switch (event.type) {
    case 'start':
      return `<span class="ev">start</span> trial ${esc(event.trial)}`;
    case 'message':
      return `<span class="ev">${esc(event.role)}</span> ${esc(event.text)}`;
    case 'tool_call':
      return `<span class="ev">tool call</span> <code>${esc(event.name)}</code> ${pre(event.args, 'args')}`;
    case 'tool_result':
      return `<span class="ev">tool result</span> ${event.ok ? '<span class="ok">ok</span>' : '<span class="fail">error</span>'} ${pre(event.ok ? event.result : event.error, 'result')}`;
    case 'llm':
      return `<span class="ev muted">llm</span> <span class="muted">${esc(event.model)}${event.stopReason ? `, ${esc(event.stopReason)}` : ''}</span>`;
    case 'error':
      return `<span class="ev ev-error">${esc(event.kind)} error</span> ${esc(event.message)}`;
    case 'final':
      return `<span class="ev ev-final">final</span> ${pre(event.output, 'output')}`;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

/** Where the iteration's gradient records are, and the model-phrased claims dropped for evidence that does not resolve. */
function gradientHtml(gradient: GradientSummary | null): string {
  if (!gradient) return '<p class="muted">No gradient records (the candidate came from outside the loop).</p>';
  const dropped = gradient.droppedClaims.length
    ? `<table><tr><th>component</th><th>claim</th><th>why it was dropped</th></tr>${gradient.droppedClaims.map((c) => `<tr><td><code>${esc(c.component)}</code></td><td>${esc(c.text)}</td><td>${esc(c.reason)}</td></tr>`).join('')}</table>`
    : '';
  return `<p>${gradient.records} records on <code>${esc(gradient.ref)}</code>. Model-phrased claims: <strong>${gradient.dropped} dropped</strong> (evidence that does not resolve), ${gradient.kept} kept.</p>${dropped}`;
}

function checkRow(check: ScorerCheck): string {
  const verdict = check.pass ? '<span class="ok">pass</span>' : '<span class="fail">fail</span>';
  return `<tr><td><code>${esc(check.scorer)}</code></td><td>${verdict}${check.code ? ` <code>${esc(check.code)}</code>` : ''}</td><td>${esc(check.where ?? '')}</td><td>${check.expected === undefined ? '' : pre(check.expected)}</td><td>${check.actual === undefined ? '' : pre(check.actual)}</td><td>${esc(check.message ?? '')}</td></tr>`;
}

function trial(shown: TrialEvidence, output: string): string {
  const verdict = shown.pass === null ? '<span class="fail">infra_error</span>' : shown.pass ? '<span class="ok">pass</span>' : '<span class="fail">fail</span>';
  const checks = shown.scorer
    ? `<table class="checks"><tr><th>scorer</th><th>verdict</th><th>where</th><th>expected</th><th>actual</th><th>message</th></tr>${shown.scorer.checks.map(checkRow).join('')}</table>`
    : '<p class="muted">No scorers: the critic decides.</p>';
  const critic = shown.critic ? `<p>critic: ${shown.critic.pass ? '<span class="ok">pass</span>' : '<span class="fail">fail</span>'} <code>${esc(shown.critic.label)}</code> ${esc(shown.critic.description)}</p>` : '<p class="muted">critic: not asked</p>';
  const omitted = shown.omittedEvents > 0 ? `<p class="muted">${shown.omittedEvents} events left out in the middle.</p>` : '';
  return `<p>trial ${shown.trial}: ${verdict} — ${esc(shown.reason)}</p>
<h5>output</h5>${output}
${checks}
${critic}
<details><summary>trace (${shown.trace.length} events)</summary><ol class="trace">${shown.trace.map((e) => `<li>${traceEvent(e)}</li>`).join('')}</ol>${omitted}</details>`;
}

function side(label: string, evidence: SideEvidence, output: string): string {
  const body = evidence.shown ? trial(evidence.shown, output) : '<p class="muted">Not run on this side.</p>';
  return `<div class="side ${label}"><h4>${label}: ${evidence.passes}/${evidence.graded} trials passed</h4>${body}</div>`;
}

/**
 * One case's details: input and expected, then each side's trial with its output (where the two
 * outputs differ highlighted), its scorers' checks, the critic and a collapsed trace. What broke
 * (vetoes, regressions) is open; the rest opens on demand.
 */
function caseSection(row: CaseRow, classes: string, rendering: ReportRendering): string {
  const c = row.evidence;
  const outputs = outputsSideBySide(c.baseline.shown?.output, c.candidate.shown?.output, rendering.textDiff, { baseline: c.baseline.shown !== null, candidate: c.candidate.shown !== null });
  const open = row.caseClass === 'veto' || row.caseClass === 'regression' ? ' open' : '';
  return `<section class="case ${c.kind} ${classes}" id="case-${esc(c.caseId)}" data-case="${esc(c.caseId)}" data-kind="${c.kind}" data-class="${row.caseClass}"><details${open}>
<summary><h3><code>${esc(c.caseId)}</code> — ${esc(CLASS_TEXT[row.caseClass])}</h3></summary>
<div class="sides"><div><h5>input</h5>${pre(c.input)}</div><div><h5>expected</h5>${pre(c.expected)}</div></div>
<div class="sides">${side('baseline', c.baseline, outputs.baseline)}${side('candidate', c.candidate, outputs.candidate)}</div>
</details></section>`;
}

export function diffHtml(diff: string): string {
  if (diff.trim() === '') return '<p class="muted">No blueprint changes recorded.</p>';
  const lines = diff.split('\n').map((line) => {
    const kind = line.startsWith('diff --git') ? 'file' : line.startsWith('@@') ? 'hunk' : line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : '';
    return kind ? `<span class="${kind}">${esc(line)}</span>` : `${esc(line)}\n`;
  });
  return `<pre class="diff">${lines.join('')}</pre>`;
}

function flipList(title: string, ids: readonly string[], reasons: ReadonlyMap<string, string>): string {
  if (ids.length === 0) return `<h3>${title}</h3><p>None.</p>`;
  return `<h3>${title} (${ids.length})</h3><ul class="flips">${ids.map((id) => `<li><a href="#case-${esc(id)}"><code>${esc(id)}</code></a> ${esc(reasons.get(id) ?? '')}</li>`).join('')}</ul>`;
}

function evidenceTable(tests: readonly CaseTest[]): string {
  if (tests.length === 0) return '';
  const counts = (s: { passes: number; graded: number } | undefined) => (s ? `${s.passes}/${s.graded}` : '-');
  const rows = tests.map(
    (t) =>
      `<tr><td><code>${esc(t.caseId)}</code></td><td>${t.direction}</td><td>${counts(t.screening.baseline)} → ${counts(t.screening.candidate)}</td><td>${t.confirmation ? `${counts(t.confirmation.baseline)} → ${counts(t.confirmation.candidate)}` : '-'}</td><td>${t.pValue === null ? '-' : `${t.direction === 'regression' ? 'worse?' : 'better?'} p ${t.pBound === 'at_least' ? '≥' : t.pBound === 'at_most' ? '≤' : '='} ${t.pValue.toPrecision(2)}`}</td><td>${t.adjustedPValue === null ? '-' : t.adjustedPValue.toPrecision(2)}</td><td>${OUTCOME_TEXT[t.outcome]}</td></tr>`,
  );
  return `<table class="evidence"><tr><th>case</th><th>tested for</th><th>screening (baseline → candidate)</th><th>fresh trials</th><th>p</th><th>Holm-adjusted p</th><th>verdict</th></tr>${rows.join('')}</table>`;
}

/** One self-contained HTML page per gate decision. */
export function renderFlipReportHtml(input: FlipReportPage, rendering: ReportRendering): string {
  const { document: doc, evidence, diagnosis } = input;
  const gate = doc.gate;
  const reasons = flipReasons(evidence);
  const headline = decisionHeadline(doc, evidence);
  const mock = doc.mockRoles && doc.mockRoles.length > 0 ? `<tr><th>On the mock engine</th><td>${esc(doc.mockRoles.join(', '))}${doc.simulated ? '' : ' (the agent\'s results are real)'}</td></tr>` : '';
  const simulated = doc.simulated
    ? '<div class="sim"><strong>Simulation.</strong> The agent\'s results come from agentdevel\'s <code>mock</code> engine, a deterministic stand-in for a language model. They show how the release loop behaves; they say nothing about a real model.</div>'
    : '';
  const worse = `${gate.aggregate.level !== null && gate.aggregate.pValue <= gate.aggregate.level ? 'worse' : 'not worse'} than the baseline overall: ${aggregateText(gate.aggregate)}`;
  const power = gate.power?.text.length ? `<h3>What this gate could see</h3><ul class="power">${gate.power.text.map((line) => `<li>${esc(line)}</li>`).join('')}</ul>` : '';
  const summary = `<table class="summary">
<tr><th>Decision</th><td><span class="badge ${esc(doc.outcome)}">${esc(doc.outcome)}</span>${doc.release ? ` as <code>${esc(doc.release)}</code>` : ''}</td></tr>
<tr><th>Candidate</th><td><code>${esc(doc.candidate.ref)}</code> (${esc(doc.candidate.commit.slice(0, 10))})</td></tr>
<tr><th>Baseline</th><td>${esc(doc.baseline.label)} (${esc(doc.baseline.commit.slice(0, 10))}): ${pct(gate.passRates.baseline)} pass</td></tr>
<tr><th>Candidate run</th><td>${pct(gate.passRates.candidate)} pass</td></tr>
<tr><th>Fixes (F→P)</th><td>${gate.f2p.length}</td></tr><tr><th>Regressions (P→F)</th><td>${gate.p2f.length}</td></tr>
<tr><th>Moved within noise</th><td>${gate.flaky.length}</td></tr>
<tr><th>Paired sign test</th><td>${esc(worse)}</td></tr>
${mock}</table>`;
  const checks = `<ul class="checks">${gate.checks.map((c) => `<li class="${c.ok ? 'ok' : 'fail'}">${c.ok ? '✓' : '✗'} ${esc(c.message)}</li>`).join('')}</ul>`;
  // Each layer of the gate and its verdict: deterministic checks veto, the statistical gate decides, a critic may only veto, a person approves.
  const layers = gate.layers.length
    ? `<table class="layers"><tr><th>layer</th><th>verdict</th></tr>${gate.layers.map((l) => `<tr><td>${esc(l.layer)}</td><td class="${l.verdict === 'veto' || l.verdict === 'reject' ? 'fail' : 'ok'}">${esc(l.verdict)}</td></tr>`).join('')}</table>`
    : '';
  const warnings = gate.warnings.map((w) => `<div class="warn">${esc(w)}</div>`).join('');
  // What broke first: vetoes and regressions, then fixes, then what moved within noise.
  const vetoed = new Set(gate.layers.flatMap((l) => l.checks.filter((c) => c.name === 'must_pass' && !c.ok).flatMap((c) => c.cases ?? [])));
  const cases = caseBrowser(caseRows(evidence?.cases ?? [], vetoed), (row, classes) => caseSection(row, classes, rendering));
  const decision = `<section class="headline${headline.failed ? ' failed' : ''}" id="decision"><p><span class="badge ${esc(doc.outcome)}">${esc(headline.outcome)}</span> <code>${esc(doc.candidate.ref)}</code> (${esc(doc.candidate.commit.slice(0, 10))}) against ${esc(doc.baseline.label)}</p><ul class="reasons">${headline.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul></section>`;
  const beyond = changeLines(doc.change ?? null);
  const change = beyond.length > 0 ? `<section class="change" id="change"><h2>Beyond the blueprint</h2><ul class="change-lines">${beyond.map((line) => `<li>${esc(line)}</li>`).join('')}</ul></section>` : '';
  const diagnosisHtml = diagnosis
    ? `<p>${esc(diagnosis.summary)}</p><table><tr><th>symptom</th><th>failing case-trials</th><th>share</th><th>description</th></tr>${diagnosis.dominantSymptoms.map((s) => `<tr><td><code>${esc(s.label)}</code></td><td>${s.count}</td><td>${pct(s.share)}</td><td>${esc(s.description)}</td></tr>`).join('')}</table>${mergesHtml(input.labelMerges ?? [])}`
    : '<p class="muted">No diagnosis (the candidate came from outside the loop).</p>';
  const typed = doc.intent?.edits?.length
    ? `${doc.intent.editsInferred ? '<p class="muted">Edits by type, inferred from the diff (the change did not type its edits):</p>' : ''}<ul class="edits-by-type">${Object.entries(editsByType(doc.intent.edits))
        .filter(([, components]) => components.length > 0)
        .map(([type, components]) => `<li><strong>${esc(type)}</strong>: ${components.map((c) => `<code>${esc(c)}</code>`).join(', ')}</li>`)
        .join('')}</ul>`
    : '';
  const targets = doc.intent?.targets.length ? `<p>Targets: ${doc.intent.targets.map((t) => `<code>${esc(t)}</code>`).join(', ')}</p>` : '<p class="muted">No targets: the gate judged the flips alone (no fixes or hit rate required).</p>';
  const intent = doc.intent ? `${targets}<p class="rationale">${esc(doc.intent.rationale)}</p>${typed}` : '<p class="muted">No intent was given.</p>';
  const body = `<header><h1>${esc(input.title)}</h1>${simulated}</header>
${decision}
${change}
<h2 id="flips">What changed</h2>${flipList('Regressions', gate.p2f, reasons)}${flipList('Fixes', gate.f2p, reasons)}${flipList('Moved within noise', gate.flaky, reasons)}
<h2 id="cases">Cases</h2>${cases.html}
<h2 id="summary">Summary</h2>${summary}
<h2 id="checks">Gate checks</h2>${layers}${checks}${warnings}
<h2 id="intent">Change intent</h2>${intent}
<h2 id="procedure">Statistics: how the gate decided</h2><p>${esc(gate.procedure.text)}</p>${gate.procedure.guarantee ? `<p><strong>Guarantee:</strong> ${esc(gate.procedure.guarantee)}.</p>` : ''}${power}${evidenceTable(gate.tests)}
<h2 id="diff">Blueprint diff</h2>${evidence ? diffHtml(evidence.diff) : '<p class="muted">Not recorded.</p>'}${evidence?.diffTruncated ? '<p class="muted">The diff is cut; see it in git.</p>' : ''}
<h2 id="diagnosis">Diagnosis</h2>${diagnosisHtml}
<h2 id="gradient">Gradient records</h2>${gradientHtml(input.gradient ?? null)}
<footer class="muted"><p>Written by agentdevel from ${esc(doc.schema)}${evidence ? ` and ${esc(evidence.schema)}` : ''}.</p></footer>`;
  return page(input.title, body, cases.css);
}

/** The label merges the diagnostician proposed with this diagnosis (recorded as aliases), or nothing. */
function mergesHtml(merges: readonly LabelMergeProposal[]): string {
  if (merges.length === 0) return '';
  const items = merges.map((m) => `<li>${m.labels.filter((l) => l !== m.into).map((l) => `<code>${esc(l)}</code>`).join(', ')} now read as <code>${esc(m.into)}</code>: ${esc(m.reason)} (evidence: ${m.evidence.map((id) => `<code>${esc(id)}</code>`).join(', ')})</li>`);
  return `<p>Labels merged by the diagnostician (aliases from this iteration's synthesis on; records and earlier decisions keep their labels):</p><ul>${items.join('')}</ul>`;
}
