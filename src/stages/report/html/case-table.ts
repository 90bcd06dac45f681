// The report's cases as one compact table (id, class, symptom, scorer, baseline against
// candidate), filterable by class, symptom and scorer, with each case's details below it.
// Report pages run no script (their Content-Security-Policy forbids it), so the filters are CSS:
// one radio group per column, and for each value a rule that hides the rows and details without
// that value while its radio is checked. Filters of different columns combine (each hides its own
// non-matches).
import type { CaseEvidence, SideEvidence } from '../../../domain/case-evidence.ts';
import { esc } from './escape.ts';

/** What a case is in this decision: a must-pass case that failed (a veto), a regression, a fix, or a move within noise. */
export type CaseClass = 'veto' | 'regression' | 'fix' | 'noise';

export const CLASS_TEXT: Record<CaseClass, string> = {
  veto: 'veto (must-pass failed)',
  regression: 'regression (pass → fail)',
  fix: 'fix (fail → pass)',
  noise: 'moved within noise',
};

/** The order cases are shown in: what broke first. */
export const CLASS_ORDER: Record<CaseClass, number> = { veto: 0, regression: 1, fix: 2, noise: 3 };

export interface CaseRow {
  readonly evidence: CaseEvidence;
  readonly caseClass: CaseClass;
  /** The critic's symptom label on the failing side's trial shown; null when it gave none. */
  readonly symptom: string | null;
  /** The scorers that failed on that trial ("critic" when only the critic failed it). */
  readonly scorers: readonly string[];
}

/** The side whose failure the case is about: the candidate's for a regression, the baseline's for a fix, whichever failed for a move within noise. */
function failingSide(c: CaseEvidence): SideEvidence {
  if (c.kind === 'fix') return c.baseline;
  if (c.kind === 'regression') return c.candidate;
  return c.candidate.shown?.pass === false ? c.candidate : c.baseline;
}

/** One row per case of the evidence, vetoes and regressions first. */
export function caseRows(cases: readonly CaseEvidence[], vetoed: ReadonlySet<string>): CaseRow[] {
  const rows = cases.map((evidence): CaseRow => {
    const shown = failingSide(evidence).shown;
    const failedScorers = [...new Set((shown?.scorer?.checks ?? []).filter((c) => !c.pass).map((c) => c.scorer))];
    const scorers = failedScorers.length > 0 ? failedScorers : shown?.critic && !shown.critic.pass ? ['critic'] : [];
    const caseClass: CaseClass = vetoed.has(evidence.caseId) ? 'veto' : evidence.kind === 'flaky' ? 'noise' : evidence.kind;
    return { evidence, caseClass, symptom: shown?.critic && !shown.critic.pass ? shown.critic.label : null, scorers };
  });
  return rows.sort((a, b) => CLASS_ORDER[a.caseClass] - CLASS_ORDER[b.caseClass]);
}

interface Facet {
  /** Short id used in element ids and class names. */
  readonly key: 'c' | 's' | 'k';
  readonly title: string;
  readonly values: (row: CaseRow) => readonly string[];
  readonly label: (value: string) => string;
}

const NONE = '—';
const FACETS: readonly Facet[] = [
  { key: 'c', title: 'class', values: (r) => [r.caseClass], label: (v) => CLASS_TEXT[v as CaseClass] ?? v },
  { key: 's', title: 'symptom', values: (r) => [r.symptom ?? NONE], label: (v) => v },
  { key: 'k', title: 'scorer', values: (r) => (r.scorers.length > 0 ? r.scorers : [NONE]), label: (v) => v },
];

/** Each facet's distinct values in first-seen order, numbered: the CSS names them by number, never by user text. */
function facetValues(rows: readonly CaseRow[]): Map<Facet, string[]> {
  return new Map(FACETS.map((f) => [f, [...new Set(rows.flatMap(f.values))]]));
}

/** The filter classes of a row or a card ("fc-0 fs-2 fk-1"). */
function filterClasses(row: CaseRow, values: Map<Facet, string[]>): string {
  return FACETS.flatMap((f) => f.values(row).map((v) => `f${f.key}-${(values.get(f) ?? []).indexOf(v)}`)).join(' ');
}

const counts = (side: SideEvidence): string => (side.graded === 0 && side.shown === null ? 'not run' : `${side.passes}/${side.graded}`);

export interface CaseBrowser {
  readonly html: string;
  /** The filters' rules, for the page's <style>. */
  readonly css: string;
}

/**
 * The filters, the table and the cases' details (`details` renders one case's card, given the
 * classes it must carry). Without a case, a line saying so.
 */
export function caseBrowser(rows: readonly CaseRow[], details: (row: CaseRow, classes: string) => string): CaseBrowser {
  if (rows.length === 0) return { html: '<p>No case moved.</p>', css: '' };
  const values = facetValues(rows);
  const radios: string[] = [];
  const groups: string[] = [];
  const rules: string[] = [];
  for (const facet of FACETS) {
    const own = values.get(facet) ?? [];
    const name = `filter-${facet.key}`;
    radios.push(`<input type="radio" class="filter" name="${name}" id="${name}-all" checked>`);
    const labels = [`<label for="${name}-all">all (${rows.length})</label>`];
    own.forEach((value, i) => {
      const id = `${name}-${i}`;
      const n = rows.filter((r) => facet.values(r).includes(value)).length;
      radios.push(`<input type="radio" class="filter" name="${name}" id="${id}">`);
      labels.push(`<label for="${id}">${esc(facet.label(value))} (${n})</label>`);
      rules.push(`#${id}:checked~.case-table tbody tr:not(.f${facet.key}-${i}),#${id}:checked~.case-cards>.case:not(.f${facet.key}-${i}){display:none}`);
    });
    for (const id of [`${name}-all`, ...own.map((_, i) => `${name}-${i}`)]) {
      rules.push(`#${id}:checked~.filters label[for="${id}"]{background:#0969da;color:#fff;border-color:#0969da}#${id}:focus-visible~.filters label[for="${id}"]{outline:2px solid #0969da;outline-offset:1px}`);
    }
    groups.push(`<fieldset class="facet"><legend>${facet.title}</legend>${labels.join('')}</fieldset>`);
  }
  const body = rows
    .map((row) => {
      const c = row.evidence;
      const scorer = row.scorers.length > 0 ? row.scorers.map((s) => `<code>${esc(s)}</code>`).join(' ') : NONE;
      // Cells name their column, so a narrow screen shows a row as one wrapped line of labelled parts.
      return `<tr class="case-row ${filterClasses(row, values)}" data-case="${esc(c.caseId)}" data-class="${row.caseClass}"><td><a href="#case-${esc(c.caseId)}"><code>${esc(c.caseId)}</code></a></td><td class="class-${row.caseClass}">${esc(CLASS_TEXT[row.caseClass])}</td><td data-label="symptom">${row.symptom ? `<code>${esc(row.symptom)}</code>` : NONE}</td><td data-label="scorer">${scorer}</td><td data-label="baseline">${counts(c.baseline)}</td><td data-label="candidate">${counts(c.candidate)}</td></tr>`;
    })
    .join('');
  const table = `<table class="case-table"><thead><tr><th>case</th><th>class</th><th>symptom</th><th>scorer</th><th>baseline</th><th>candidate</th></tr></thead><tbody>${body}</tbody></table>`;
  const cards = `<div class="case-cards">${rows.map((row) => details(row, filterClasses(row, values))).join('\n')}</div>`;
  const html = `<div class="case-browser">${radios.join('')}<div class="filters">${groups.join('')}</div>${table}<p class="muted">Pass counts are trials passed of those graded in the gate's screening runs. Pick a class, symptom or scorer to show only those cases; open a case for its outputs side by side (differences highlighted), its scorers' reasons and its trace.</p>${cards}</div>`;
  return { html, css: rules.join('\n') };
}
