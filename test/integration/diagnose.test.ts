import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { silentReporter } from '../../src/domain/ports/reporter.ts';
import type { CaseRecord } from '../../src/domain/record.ts';
import { diagnose } from '../../src/stages/diagnose/diagnose.ts';
import { scriptedDiagnostician, scriptedModel } from '../helpers/scripted-model.ts';
import { tempDir } from '../helpers/workspace.ts';
import { caseRecord } from '../helpers/records.ts';
import { runSandboxed } from '../../src/adapters/process/sandbox.ts';

let tracesRoot: string;
let records: CaseRecord[];

function record(caseId: string, pass: boolean, label: string, trace: object[]): CaseRecord {
  const traceRef = `run-x/${caseId}.t0.jsonl`;
  mkdirSync(path.join(tracesRoot, 'run-x'), { recursive: true });
  writeFileSync(path.join(tracesRoot, traceRef), trace.map((e) => JSON.stringify(e)).join('\n'));
  return caseRecord(caseId, pass, { output: 'x', traceRef, scorer: { pass, checks: [] }, critic: { pass, label, description: `${label} happened` } });
}

beforeAll(() => {
  tracesRoot = tempDir('agentdevel-diag-');
  const toolError = [
    { type: 'tool_call', id: '1', name: 'get_order', args: { order_id: '#W1' } },
    { type: 'tool_result', id: '1', ok: false, error: 'order "#W1" not found' },
    { type: 'final', output: 'sorry' },
  ];
  records = [
    record('a', false, 'tool_error', toolError),
    record('b', false, 'tool_error', toolError),
    record('c', false, 'missing_required_step', [{ type: 'final', output: 'done' }]),
    record('d', true, 'ok', [{ type: 'final', output: 'done' }]),
  ];
});

/** A generated script whose report puts every failure under one label. */
const scriptWithLabel = (label: string, extra = '') => `import fs from 'node:fs';
const [input, output] = process.argv.slice(2);
const records = fs.readFileSync(input, 'utf8').trim().split('\\n').map((l) => JSON.parse(l));
const failing = records.filter((r) => r.pass === false);
fs.writeFileSync(output, JSON.stringify({
  summary: 'generated', totals: { records: records.length, failing: failing.length, infraErrors: 0 },
  dominantSymptoms: [{ label: '${label}', count: failing.length, share: 1, description: 'from a generated script',
    subPatterns: [{ name: 'order_id_with_hash', description: 'ids written as #W…', caseIds: ['a', 'b'] }] }],
  patterns: [], representativeCases: [], affectedSurface: [{ label: '${label}', caseIds: failing.map((r) => r.caseId) }],${extra}
}));`;
const VALID_SCRIPT = scriptWithLabel('tool_error', " notes: ['ids with a leading # fail'],");

async function run(scripts: string[], maxRepairs = 2) {
  const diagnostician = scriptedDiagnostician(scripts);
  const result = await diagnose(
    {
      // Traces in the older layout, one file per case-trial: they still read.
      runId: 'run-x',
      tracesRoot,
      workDir: path.join(tempDir('agentdevel-diag-work-'), 'iter'),
      previousScript: null,
      previousReport: null,
      lastRc: null,
      caseChanges: null,
      model: 'scripted',
      taxonomy: [],
      limits: { timeoutMs: 2000, memoryMb: 64 },
      maxRepairs,
    },
    { model: scriptedModel(diagnostician), sandbox: runSandboxed, reporter: silentReporter, records: { eachRecord: () => records } },
  );
  return { result, requests: diagnostician.requests };
}

describe('executable diagnosis', () => {
  it('uses a generated script whose report validates, with finer sub-patterns under a label and notes passed on', async () => {
    const { result, requests } = await run([VALID_SCRIPT]);
    expect(result.source).toBe('generated');
    expect(result.report.dominantSymptoms[0]).toMatchObject({ label: 'tool_error', count: 3, subPatterns: [{ name: 'order_id_with_hash' }] });
    expect(result.report.notes).toEqual(['ids with a leading # fail']);
    expect(result.attempts).toEqual([{ ok: true, error: null }]);
    // The vocabulary is the taxonomy plus the labels the failing records carry.
    expect(requests[0]?.taxonomy.map((s) => s.label)).toEqual(['missing_required_step', 'tool_error']);
    expect(result.vocabulary.map((s) => s.label)).toEqual(['missing_required_step', 'tool_error']);
  });

  it('sends a failure back for repair with the failed script and the exact error, and uses the repaired script', async () => {
    const failing = 'throw new Error("boom-7f3a")';
    const { result, requests } = await run([failing, VALID_SCRIPT]);
    expect(result.source).toBe('generated');
    expect(requests[0]?.repair).toBeNull();
    expect(requests[1]?.repair?.previousOutput).toBe(failing);
    expect(requests[1]?.repair?.error).toMatch(/boom-7f3a/);
  });

  it('refuses a report that coins a label outside the vocabulary, naming the allowed labels, then takes the repaired one', async () => {
    const coined = scriptWithLabel('order_id_not_canonical');
    const { result, requests } = await run([coined, VALID_SCRIPT]);
    expect(result.source).toBe('generated');
    expect(result.attempts[0]?.error).toMatch(/dominantSymptoms\[0\]\.label: "order_id_not_canonical" is not a symptom label of the taxonomy/);
    expect(requests[1]?.repair?.error).toMatch(/one of: missing_required_step, tool_error.*subPatterns/);
    expect(requests[1]?.repair?.previousOutput).toBe(coined);
  });

  it('refuses unknown report fields rather than dropping them', async () => {
    const { result } = await run([scriptWithLabel('tool_error', " hypotheses: ['ids are not canonical'],"), VALID_SCRIPT]);
    expect(result.attempts[0]?.error).toMatch(/report schema at hypotheses: unknown key .*"notes"/);
    expect(result.source).toBe('generated');
  });

  it.each([
    ['reads an environment variable', 'console.log(process.env.ANTHROPIC_API_KEY)', /environment variable ANTHROPIC_API_KEY is denied/],
    ['reads a file outside its inputs', "import fs from 'node:fs'; fs.readFileSync('/etc/hostname')", /ERR_ACCESS_DENIED|restricted/],
    ['spawns a process', "import cp from 'node:child_process'; cp.spawnSync('/bin/true', { env: {} })", /ERR_ACCESS_DENIED|restricted|denied/],
    ['loops forever', 'for (;;) {}', /time limit/],
    ['is empty', '', /empty/],
    ['writes an invalid report', "import fs from 'node:fs'; fs.writeFileSync(process.argv[3], JSON.stringify({ summary: 1 }))", /report schema/],
  ])('falls back to the built-in script when the generated one %s, recording why', async (_name, script, reason) => {
    const { result } = await run([script], 1);
    expect(result.source).toBe('builtin');
    expect(result.attempts).toHaveLength(2);
    for (const attempt of result.attempts) {
      expect(attempt.ok).toBe(false);
      expect(attempt.error).toMatch(reason);
    }
    expect(result.report.dominantSymptoms.map((s) => s.label)).toEqual(['tool_error', 'missing_required_step']);
  });

  it('writes a built-in report with patterns and the affected surface', async () => {
    const { result } = await run([''], 0);
    expect(result.report.totals).toEqual({ records: 4, failing: 3, infraErrors: 0 });
    expect(result.report.patterns).toContainEqual(expect.objectContaining({ label: 'tool_error', pattern: 'get_order called with order_id starts with "#"', caseIds: ['a', 'b'] }));
    expect(result.report.affectedSurface).toContainEqual({ label: 'tool_error', caseIds: ['a', 'b'] });
  });
});
