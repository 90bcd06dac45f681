// Rate limits used, no case lost: `agentdevel run` with the agent on Claude against the fake
// Messages API enforcing a request rate (a token bucket, as the real API; 429 with a whole-second
// retry-after when it is empty). The agent looks each case up with one tool and answers: two
// requests a case. Prints the achieved request rate as a share of the limit (the fake's initial
// burst counted out), the 429s the fake sent, and the infra_error and lost case-trials.
// By default the fake sends no rate-limit headers at all, only 429 with retry-after (the harder
// case); --headers adds `anthropic-ratelimit-requests-*` to every answer, as the real API does.
// Run: npx tsx bench/rate-limit.ts [--rpm 600] [--latency 200] [--concurrency 16] [--cases 200] [--headers]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openSql } from '../src/adapters/store/sqlite.ts';
import { startFakeAnthropic } from '../test/helpers/fake-anthropic.ts';
import { lookupThenAnswer } from '../test/helpers/fake-brain.ts';
import { cliAsync } from '../test/helpers/workspace.ts';
import { load } from './lib/measure.ts';
import { writeScaleWorkspace } from './lib/scale-workspace.ts';

const { values } = parseArgs({
  options: {
    rpm: { type: 'string', default: '600' },
    latency: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '16' },
    cases: { type: 'string', default: '200' },
    headers: { type: 'boolean', default: false },
  },
});
const rpm = Number(values.rpm);
const cases = Number(values.cases);
const concurrency = Number(values.concurrency);
const burst = Math.max(1, Math.ceil(rpm / 60));

const server = await startFakeAnthropic(lookupThenAnswer, { requestsPerMinute: rpm, burst, latencyMs: Number(values.latency), headers: values.headers });
const dir = mkdtempSync(path.join(tmpdir(), 'agentdevel-bench-rate-limit-'));
try {
  writeScaleWorkspace(dir, { runtime: 'tool-loop', cases, concurrency, model: 'claude-sonnet-5-5' });
  const loadBefore = load();
  const started = performance.now();
  // Not spawnSync: the fake API answers from this process.
  const run = await cliAsync(['run', '--json', '-C', dir], { env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-bench-0123456789' } });
  const wallS = (performance.now() - started) / 1000;
  if (run.code !== 0 && run.code !== 1) throw new Error(`agentdevel run failed (exit ${run.code}): ${run.stderr.slice(-800)}`);
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  const counts = sql.get<{ records: number; caseIds: number; infra: number; passed: number }>(
    `SELECT COUNT(*) AS records, COUNT(DISTINCT case_id) AS caseIds, SUM(status = 'infra_error') AS infra, SUM(pass = 1) AS passed FROM records`,
  );
  sql.close();
  const { accepted, refused, firstAt, lastAt } = server.limited;
  const spanMin = ((lastAt ?? 0) - (firstAt ?? 0)) / 60_000;
  const achieved = spanMin > 0 ? (accepted - burst) / spanMin : Number.NaN;
  const lost = cases - Number(counts?.caseIds ?? 0);
  console.log(`fake API: ${rpm} requests/min (bucket of ${burst}), ${values.headers ? 'rate-limit headers on every answer' : 'no rate-limit headers, 429 + retry-after only'}, ${values.latency} ms latency; agentdevel run: concurrency ${concurrency}, ${cases} cases × 1 trial, 2 requests a case`);
  console.log(`  requests accepted ${accepted}, refused with 429: ${refused}; wall ${wallS.toFixed(1)} s`);
  console.log(`  achieved ${achieved.toFixed(0)} requests/min = ${((achieved / rpm) * 100).toFixed(1)}% of the limit (the first ${burst}, the bucket's burst, counted out)`);
  console.log(`  records ${counts?.records ?? 0}, passed ${counts?.passed ?? 0}, infra_error ${counts?.infra ?? 0}, lost cases ${lost}`);
  console.log(`  (load ${loadBefore} → ${load()})`);
  const ok = achieved / rpm >= 0.95 && Number(counts?.infra ?? 0) === 0 && lost === 0;
  console.log(`summary: ${((achieved / rpm) * 100).toFixed(1)}% of the rate limit used (target ≥ 95%), ${counts?.infra ?? 0} infra_error (target 0), ${lost} lost cases (target 0): ${ok ? 'met' : 'NOT met'}`);
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
