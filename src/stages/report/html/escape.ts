import { html } from '../escape/html.ts';

/** HTML-escapes text for element content and quoted attribute values (the one HTML escaper, escape/html.ts). */
export const esc = (value: unknown): string => html(value);

/** A value as pretty JSON (strings stay as they are) inside <pre>. */
export function pre(value: unknown, className = 'value'): string {
  return `<pre class="${className}">${esc(value === null || value === undefined ? '—' : value)}</pre>`;
}

export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** A self-contained page: inline styles (`css` added to the shared ones), no scripts, nothing fetched from the network. */
export function page(title: string, body: string, css = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title>
<style>${STYLE}${css}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1280px;padding:16px 24px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f6f8fa}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}pre{background:#f6f8fa;padding:6px 8px;margin:4px 0;white-space:pre-wrap;word-break:break-word;max-height:360px;overflow:auto}
.badge{display:inline-block;padding:2px 10px;border-radius:10px;font-weight:600;color:#fff}.promoted,.accepted,.accept{background:#1a7f37}.rejected,.reject{background:#cf222e}.undecided{background:#9a6700}
.sim{background:#fff8c5;border:1px solid #d4a72c;padding:8px 12px;margin:8px 0}.warn{background:#fff1e5;border-left:4px solid #bc4c00;padding:6px 10px;margin:6px 0}
.ok{color:#1a7f37}.fail{color:#cf222e}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:12px}.side{border:1px solid #d0d7de;border-radius:6px;padding:8px;min-width:0}.side h4{margin:0 0 6px;font-size:14px}
.case{border:1px solid #d0d7de;border-radius:8px;padding:8px 12px;margin:12px 0;overflow-wrap:anywhere;min-width:0}.case.regression{border-left:5px solid #cf222e}.case.fix{border-left:5px solid #1a7f37}.case.flaky{border-left:5px solid #9a6700}
ol.trace{padding-left:22px;margin:4px 0}ol.trace li{margin:2px 0}.ev{font-weight:600}.ev-error{color:#cf222e}.ev-final{color:#0550ae}
.diff .add{background:#dafbe1;display:block}.diff .del{background:#ffebe9;display:block}.diff .hunk{color:#8250df;display:block}.diff .file{font-weight:700;display:block}
table.checks{width:100%;table-layout:fixed}table.checks th{overflow-wrap:anywhere;font-size:12px}table.checks th:nth-child(1),table.checks th:nth-child(2),table.checks th:nth-child(3){width:14%}table.checks td{overflow-wrap:anywhere;min-width:0}table.checks pre{max-height:180px}
.headline{border:2px solid #d0d7de;border-radius:8px;padding:8px 14px;margin:8px 0}.headline.failed{border-color:#cf222e}.headline ul{margin:4px 0;padding-left:20px}.headline li{overflow-wrap:anywhere}
ul.flips li{overflow-wrap:anywhere}table{max-width:100%}table.summary,table.evidence{display:block;overflow-x:auto}
@media (max-width:700px){body{padding:8px}.sides{grid-template-columns:1fr}table.checks,table.checks tbody,table.checks tr,table.checks td{display:block;width:auto}table.checks tr:first-child{display:none}table.checks td{border:0;border-bottom:1px solid #d0d7de}}
.muted{color:#57606a}svg text{font:11px system-ui,sans-serif}
td,th{overflow-wrap:anywhere}table.releases th{overflow-wrap:normal;word-break:keep-all;font-size:12px}@media (min-width:701px){table.releases{display:block;overflow-x:auto}}svg.chart{max-width:100%;height:auto}
.case-browser{position:relative}.case-browser .filter{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.filters{display:flex;flex-wrap:wrap;gap:6px 18px;margin:6px 0 8px}fieldset.facet{border:0;padding:0;margin:0;min-width:0;display:flex;flex-wrap:wrap;gap:4px;align-items:center}
fieldset.facet legend{float:left;font-weight:600;padding:0;margin-right:4px}fieldset.facet label{border:1px solid #d0d7de;border-radius:12px;padding:1px 9px;font-size:12px;cursor:pointer;overflow-wrap:anywhere}
table.case-table{width:100%;table-layout:fixed;font-size:13px}table.case-table th{overflow-wrap:normal}table.case-table th:nth-child(n+5){width:6.5em}table.case-table td.class-veto,table.case-table td.class-regression{color:#cf222e;font-weight:600}
.case>details>summary{cursor:pointer}.case>details>summary h3{display:inline;font-size:15px}.case>details[open]>summary{margin-bottom:6px}
pre.diff-text del{background:#ffcecb;color:inherit;text-decoration:line-through}pre.diff-text ins{background:#aceebb;color:inherit;text-decoration:none;font-weight:600}
@media (max-width:700px){td,th{padding:3px 4px}
table.case-table,table.case-table tbody{display:block}table.case-table thead{display:none}table.case-table tr{display:flex;flex-wrap:wrap;gap:0 10px;border-bottom:1px solid #d0d7de;padding:4px 0}table.case-table td{border:0;padding:0}table.case-table td[data-label]::before{content:attr(data-label) " ";color:#57606a}
table.releases,table.releases tbody,table.releases tr,table.releases td{display:block;width:auto}table.releases tr:first-child{display:none}table.releases tr{border:1px solid #d0d7de;border-radius:6px;margin:8px 0;padding:4px 0}table.releases td{border:0;padding:1px 8px}table.releases td::before{content:attr(data-label) ": ";font-weight:600}}
`;
