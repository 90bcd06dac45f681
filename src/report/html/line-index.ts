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

/** The line's index: every release with its flips and a link to its report, and the chart. */
export function renderLineIndexHtml(index: LineIndexPage): string {
  const rows = index.releases
    .map(
      (r) =>
        `<tr><td><a href="${esc(r.href)}"><code>${esc(r.release)}</code></a></td><td>${r.iteration}</td><td>${pct(r.passRate)}</td><td>${Object.entries(r.passHat)
          .map(([k, v]) => `pass^${esc(k)} ${pct(v)}`)
          .join(', ')}</td><td>${r.f2p}</td><td>${r.p2f}</td><td>${r.simulated ? 'simulated (mock agent)' : ''}</td></tr>`,
    )
    .join('');
  const body = `<h1>${esc(index.blueprint)}: releases</h1>
${releaseChart(index)}
<table class="releases"><tr><th>release</th><th>iteration</th><th>pass rate</th><th>pass^k</th><th>fixes</th><th>regressions</th><th></th></tr>${rows}</table>
<p class="muted">Rejected release candidates are kept on refs/agentdevel/rc/${esc(index.blueprint)}/iter-NNN: <code>agentdevel log</code> lists them and <code>agentdevel report iter-NNN</code> writes their report.</p>`;
  return page(`${index.blueprint}: releases`, body);
}
