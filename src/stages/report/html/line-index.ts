import { approverText } from '../gate-text.ts';
import { esc, page, pct } from './escape.ts';

/** One release of the line as the index shows it. */
export interface ReleasePoint {
  readonly release: string;
  readonly iteration: number;
  readonly passRate: number;
  /** pass^k of the release's own run, by k (k = 1 .. trials). */
  readonly passHat: Readonly<Record<string, number>>;
  readonly f2p: number;
  readonly p2f: number;
  /** Relative link to the release's report.html. */
  readonly href: string;
  readonly simulated: boolean;
  /** When it was released (its approval, else its commit), ISO 8601; null when not known yet. */
  readonly date?: string | null;
  /** The change intent: targets and rationale. */
  readonly intent?: string | null;
  /** Who approved it (the approval layer), when a person did. */
  readonly approvedBy?: string | null;
  /** How many case-trials the pass rate rests on (for its interval). */
  readonly caseTrials?: number | null;
  /** Its sealed test-split evaluation, when one was run. */
  readonly testSplit?: { readonly passRate: number; readonly passed: number | null; readonly graded: number | null } | null;
}

/** A 95% Wilson score interval for a share of n trials. */
export function wilson(share: number, n: number): readonly [number, number] {
  const z = 1.959964;
  const centre = (share + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((share * (1 - share)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

export interface LineIndexPage {
  readonly blueprint: string;
  /** The pass rate of the version before the first release (the starting point of the chart), when known. */
  readonly initialPassRate: number | null;
  readonly releases: readonly ReleasePoint[];
}

const W = 640;
const H = 240;
const PAD = { left: 44, right: 16, top: 16, bottom: 36 };

/** pass rate and pass^k over releases as an inline SVG line chart (no scripts, no network). */
export function releaseChart(index: LineIndexPage): string {
  const labels = [...(index.initialPassRate === null ? [] : ['initial']), ...index.releases.map((r) => r.release.split('/').at(-1) ?? r.release)];
  const rate = [...(index.initialPassRate === null ? [] : [index.initialPassRate]), ...index.releases.map((r) => r.passRate)];
  const k = Math.max(1, ...index.releases.flatMap((r) => Object.keys(r.passHat).map(Number)));
  const hat = k > 1 ? [...(index.initialPassRate === null ? [] : [null]), ...index.releases.map((r) => r.passHat[String(k)] ?? null)] : [];
  if (labels.length === 0) return '<p class="muted">No releases yet.</p>';
  const x = (i: number) => PAD.left + (labels.length === 1 ? (W - PAD.left - PAD.right) / 2 : (i * (W - PAD.left - PAD.right)) / (labels.length - 1));
  const y = (v: number) => PAD.top + (1 - v) * (H - PAD.top - PAD.bottom);
  const line = (values: ReadonlyArray<number | null>, color: string, name: string) => {
    const points = values.map((v, i) => (v === null ? null : ([x(i), y(v)] as const))).filter((p): p is readonly [number, number] => p !== null);
    if (points.length === 0) return '';
    const path = points.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
    const dots = points.map(([px, py]) => `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="3" fill="${color}"/>`).join('');
    return `<path d="${path}" fill="none" stroke="${color}" stroke-width="2" data-series="${esc(name)}"/>${dots}`;
  };
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map((v) => `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v)}" y2="${y(v)}" stroke="#d0d7de"/><text x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end">${v * 100}%</text>`)
    .join('');
  const ticks = labels.map((l, i) => `<text x="${x(i)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${esc(l)}</text>`).join('');
  const legend = `<text x="${PAD.left}" y="${H - 4}" fill="#0969da">● pass rate (pass^1)</text>${k > 1 ? `<text x="${PAD.left + 160}" y="${H - 4}" fill="#8250df">● pass^${k} (all ${k} trials pass)</text>` : ''}`;
  return `<svg class="chart" role="img" aria-label="pass rate over releases" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">${grid}${ticks}${line(rate, '#0969da', 'pass rate')}${k > 1 ? line(hat, '#8250df', `pass^${k}`) : ''}${legend}</svg>`;
}

const COLUMNS = ['release', 'date', 'iteration', 'intent', 'approved by', 'pass rate [95% interval]', 'pass^k', 'fixes', 'regressions', 'test split', 'agent', 'report'] as const;

/** The line's index: every release with its flips and a link to its report, and the chart. */
export function renderLineIndexHtml(index: LineIndexPage): string {
  const rows = index.releases
    .map((r) => {
      const interval = r.caseTrials ? wilson(r.passRate, r.caseTrials) : null;
      const rate = `${pct(r.passRate)}${interval ? ` <span class="muted">[${pct(interval[0])}, ${pct(interval[1])}]</span>` : ''}`;
      const hat = Object.entries(r.passHat).map(([k, v]) => `pass^${esc(k)} ${pct(v)}`).join(', ');
      const test = r.testSplit ? `${pct(r.testSplit.passRate)}${r.testSplit.graded ? ` (${r.testSplit.passed}/${r.testSplit.graded})` : ''}` : '<span class="muted">not evaluated</span>';
      const cells = [
        `<a href="${esc(r.href)}"><code>${esc(r.release)}</code></a>`,
        r.date ? esc(r.date.slice(0, 10)) : '—',
        String(r.iteration),
        esc(r.intent ?? '—'),
        esc(approverText(r.approvedBy)),
        rate,
        hat,
        String(r.f2p),
        String(r.p2f),
        test,
        r.simulated ? 'simulated (mock agent)' : 'real',
        `<a href="${esc(r.href)}">report</a>`,
      ];
      // Each cell names its column, so a narrow screen can show a row as a card of labelled lines.
      return `<tr>${cells.map((cell, i) => `<td data-label="${COLUMNS[i]}">${cell}</td>`).join('')}</tr>`;
    })
    .join('');
  const body = `<h1>${esc(index.blueprint)}: releases</h1>
${releaseChart(index)}
<table class="releases"><tr>${COLUMNS.map((c) => `<th>${c}</th>`).join('')}</tr>${rows}</table>
<p class="muted">Pass-rate intervals are 95% Wilson intervals over the release run's case-trials. Rejected release candidates are kept on refs/agentdevel/rc/${esc(index.blueprint)}/iter-NNN: <code>agentdevel log</code> lists them and <code>agentdevel report iter-NNN</code> writes their report.</p>`;
  return page(`${index.blueprint}: releases`, body);
}
