import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { silentReporter } from '../../src/domain/progress.ts';
import type { CaseRecord } from '../../src/domain/record.ts';
import { diagnose } from '../../src/stages/diagnose/diagnose.ts';
import { scriptedDiagnostician, scriptedModel } from '../helpers/scripted-model.ts';
import { tempDir } from '../helpers/workspace.ts';

let tracesRoot: string;
let records: CaseRecord[];

function record(caseId: string, pass: boolean, label: string, trace: object[]): CaseRecord {
  const traceRef = `run-x/${caseId}.t0.jsonl`;
  mkdirSync(path.join(tracesRoot, 'run-x'), { recursive: true });
  writeFileSync(path.join(tracesRoot, traceRef), trace.map((e) => JSON.stringify(e)).join('\n'));
  return {
    caseId,
    trial: 0,
    status: 'ok',
    output: 'x',
    traceRef,
    scorer: { pass, checks: [] },
    critic: { pass, label, description: `${label} happened` },
    pass,
    error: null,
  };
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

const VALID_SCRIPT = `import fs from 'node:fs';
const [input, output] = process.argv.slice(2);
const records = fs.readFileSync(input, 'utf8').trim().split('\\n').map((l) => JSON.parse(l));
const failing = records.filter((r) => r.pass === false);
fs.writeFileSync(output, JSON.stringify({
  summary: 'generated', totals: { records: records.length, failing: failing.length, infraErrors: 0 },
  dominantSymptoms: [{ label: 'custom', count: failing.length, share: 1, description: 'from a generated script' }],
  patterns: [], representativeCases: [], affectedSurface: [{ label: 'custom', caseIds: failing.map((r) => r.caseId) }],
}));`;

async function run(scripts: string[], maxRepairs = 2) {
  const diagnostician = scriptedDiagnostician(scripts);
  const result = await diagnose(
    {
      // Traces in the older layout, one file per case-trial: they still read.
      runId: 'run-x',
      tracesRoot,
      workDir: path.join(tempDir('agentdevel-diag-work-'), 'iter'),
      previousScript: null,
      model: 'scripted',
      taxonomy: [],
      limits: { timeoutMs: 2000, memoryMb: 64 },
      maxRepairs,
    },
    { model: scriptedModel(diagnostician), reporter: silentReporter, records: { eachRecord: () => records } },
  );
  return { result, feedback: diagnostician.feedback };
}

describe('executable diagnosis', () => {
  it('uses a generated script whose report validates', async () => {
    const { result } = await run([VALID_SCRIPT]);
    expect(result.source).toBe('generated');
    expect(result.report.dominantSymptoms[0]).toMatchObject({ label: 'custom', count: 3 });
    expect(result.attempts).toEqual([{ ok: true, error: null }]);
  });

  it('sends a failure back for repair and uses the repaired script', async () => {
    const { result, feedback } = await run(['throw new Error("boom")', VALID_SCRIPT]);
    expect(result.source).toBe('generated');
    expect(feedback[0]).toBeNull();
    expect(feedback[1]).toMatch(/boom/);
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
