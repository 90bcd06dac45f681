// The built-in diagnosis script. It is used when no diagnostician model is configured, and as
// the fallback when a generated script fails or prints an invalid report. It runs in the same
// sandbox as generated scripts, with the same contract:
//   node builtin-diagnosis.mjs RECORDS.jsonl REPORT.json
// RECORDS.jsonl holds one record per case-trial, each with its trace inline; REPORT.json must
// receive a diagnosis report (dominant symptoms, trace patterns, representative cases, affected
// surface).
// It is the reference program of that contract (the report is domain/diagnosis.ts), and only ever
// read as text: by the diagnose stage, as its fallback, and by the mock diagnostician, which writes
// it. Nothing imports it.
import { readFileSync, writeFileSync } from 'node:fs';

const [recordsFile, reportFile] = process.argv.slice(2);
const records = readFileSync(recordsFile, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line));

const failing = records.filter((r) => r.status === 'ok' && r.pass === false);
const infraErrors = records.filter((r) => r.status === 'infra_error').length;

function countBy(items, key) {
  const counts = new Map();
  for (const item of items) {
    const k = key(item);
    if (k === null || k === undefined) continue;
    const entry = counts.get(k) ?? { count: 0, caseIds: new Set() };
    entry.count += 1;
    entry.caseIds.add(item.caseId);
    counts.set(k, entry);
  }
  return [...counts.entries()].sort((a, b) => b[1].count - a[1].count || String(a[0]).localeCompare(String(b[0])));
}

/** Shapes of argument values that often explain tool errors, without quoting the values. */
function argumentShape(args) {
  const shapes = [];
  for (const [name, value] of Object.entries(args ?? {})) {
    if (typeof value !== 'string') continue;
    if (/^[#@]/.test(value)) shapes.push(`${name} starts with "${value[0]}"`);
    else if (/[a-z]/.test(value) && /\d/.test(value) && value !== value.toUpperCase()) shapes.push(`${name} is lower case`);
    if (/^\s|\s$/.test(value)) shapes.push(`${name} has surrounding spaces`);
  }
  return shapes;
}

function tracePatterns(record) {
  const patterns = [];
  const calls = new Map();
  let steps = 0;
  const tools = [];
  for (const event of record.trace ?? []) {
    if (event.type === 'llm') steps += 1;
    if (event.type === 'tool_call') {
      calls.set(event.id, event);
      tools.push(event.name);
    }
    if (event.type === 'tool_result' && !event.ok) {
      const call = calls.get(event.id);
      const error = String(event.error ?? '').replace(/"[^"]*"/g, '"…"').replace(/\b[A-Z]?\d{3,}\b/g, '…');
      patterns.push(`${call?.name ?? 'tool'} fails: ${error}`);
      for (const shape of argumentShape(call?.args)) patterns.push(`${call?.name ?? 'tool'} called with ${shape}`);
    }
    if (event.type === 'error') patterns.push(`${event.kind} error: ${String(event.message).replace(/\d+/g, 'N')}`);
  }
  if (tools.length > 0) patterns.push(`tool sequence: ${tools.join(' → ')}`);
  patterns.push(`${steps >= 7 ? '7 or more' : steps} model turns`);
  return patterns;
}

const bySymptom = countBy(failing, (r) => r.critic?.label ?? 'unlabelled');
const dominantSymptoms = bySymptom.map(([label, { count }]) => ({
  label,
  count,
  share: failing.length === 0 ? 0 : Math.round((count / failing.length) * 1000) / 1000,
  description: failing.find((r) => (r.critic?.label ?? 'unlabelled') === label)?.critic?.description ?? '',
}));

const patterns = [];
const representativeCases = [];
const affectedSurface = [];
for (const [label, { caseIds }] of bySymptom) {
  const group = failing.filter((r) => (r.critic?.label ?? 'unlabelled') === label);
  const expanded = group.flatMap((r) => tracePatterns(r).map((pattern) => ({ caseId: r.caseId, pattern })));
  for (const [pattern, found] of countBy(expanded, (p) => p.pattern).slice(0, 4)) {
    patterns.push({ label, pattern, count: found.count, caseIds: [...found.caseIds].sort() });
  }
  for (const r of group.slice(0, 2)) representativeCases.push({ caseId: r.caseId, label, description: r.critic?.description ?? '' });
  affectedSurface.push({ label, caseIds: [...caseIds].sort() });
}

const top = dominantSymptoms[0];
const report = {
  summary:
    failing.length === 0
      ? `All ${records.length - infraErrors} graded case-trials pass.`
      : `${failing.length} of ${records.length} case-trials fail; the dominant symptom is ${top.label} (${top.count}).`,
  totals: { records: records.length, failing: failing.length, infraErrors },
  dominantSymptoms,
  patterns,
  representativeCases,
  affectedSurface,
};
writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
