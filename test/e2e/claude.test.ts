import { blueprintBrief } from '../../src/adapters/blueprint/brief.ts';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSql } from '../../src/adapters/store/sqlite.ts';
import { startFakeAnthropic, toolAnswer, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { between, lookupThenAnswer, minimalBrain, mockBrain, userText, withFaults } from '../helpers/fake-brain.ts';
import { writeScaleWorkspace } from '../../bench/lib/scale-workspace.ts';
import { cliWatched } from '../helpers/processes.ts';
import { simulatedSynthesis } from '../../src/adapters/engines/mock/synthesizer.ts';
import type { DiagnosisReport } from '../../src/domain/diagnosis.ts';
import { cliAsync, decisionLogAsync, exampleWorkspace, git, repoRoot, tempDir } from '../helpers/workspace.ts';

const CLAUDE = 'claude-sonnet-5-5';
const KEY = 'sk-ant-test-0123456789abcdef';

/** The example with every role on Claude and a 16-case train split (to keep the suite fast). */
/** Only the critic is a model: the mock agent at temperature 0 plays each case the same way every trial. */
function onlyTheCritic(dir: string): void {
  const file = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  config.models = { agent: 'mock', critic: CLAUDE, diagnostician: 'mock', synthesizer: 'mock' };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
}

async function claudeWorkspace(edit?: (dir: string) => void): Promise<string> {
  const dir = await exampleWorkspace();
  const configFile = path.join(dir, 'agentdevel.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  config.models = { agent: CLAUDE, critic: CLAUDE, diagnostician: CLAUDE, synthesizer: CLAUDE };
  // Every case-trial goes to the critic (not only those a scorer failed), so these tests see all its traffic.
  config.critic = 'all';
  // 16 cases are kept: the must-pass tag (train-025) would name none, which is refused at load.
  const gate = config.gate as { layers: Array<{ layer: string }> };
  gate.layers = gate.layers.map((layer) => (layer.layer === 'checks' ? { layer: 'checks' } : layer));
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  const train = path.join(dir, 'rubrics/orders/train.jsonl');
  writeFileSync(train, `${readFileSync(train, 'utf8').trim().split('\n').slice(0, 16).join('\n')}\n`);
  edit?.(dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'every role on Claude; 16 train cases');
  return dir;
}

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic(mockBrain);
});
afterAll(async () => {
  await server.close();
});

const env = () => ({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY });

const log = decisionLogAsync;

function infraErrors(dir: string): number {
  const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
  try {
    return Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM records WHERE status = 'infra_error'`)?.n);
  } finally {
    sql.close();
  }
}

let cleanDecisions: unknown[] = [];

describe('iterate with every role on Claude (fake Messages API)', () => {
  it('completes two iterations: a generated diagnosis script runs, an RC is synthesized and gated, and the cost is logged', async () => {
    const dir = await claudeWorkspace();
    server.respond = mockBrain;
    const before = server.requests.length;
    const result = await cliAsync(['iterate', '--max-iterations', '2', '--json', '-C', dir], { env: env() });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as { iterations: Array<{ kind: string; diagnosisSource: string }> };
    expect(outcome.iterations).toHaveLength(2);
    for (const iteration of outcome.iterations) {
      expect(['promoted', 'rejected']).toContain(iteration.kind);
      expect(iteration.diagnosisSource).toBe('generated');
    }
    const roles = new Set(server.requests.slice(before).map((r) => r.role));
    expect([...roles].sort()).toEqual(['agent', 'critic', 'diagnostician', 'reviewer', 'synthesizer']);
    for (const request of server.requests.slice(before)) expect(request.raw).not.toContain(KEY);
    // The synthesizer sees, for each dominant symptom, a failing case as it happened.
    const synthesisRequests = server.requests.slice(before).filter((r) => r.role === 'synthesizer');
    expect(synthesisRequests.length).toBeGreaterThan(0);
    for (const request of synthesisRequests) {
      const text = userText(request.body);
      const dominant = (JSON.parse(between(text, '<diagnosis>', '</diagnosis>')) as DiagnosisReport).dominantSymptoms.map((s) => s.label);
      const block = between(text, '<failing_cases', '</failing_cases>');
      expect(block).toMatch(/^budget_tokens="6000" used_tokens="\d+">/);
      const shown = JSON.parse(block.slice(block.indexOf('\n[') + 1)) as Array<{ label: string; cases: Array<Record<string, unknown> & { traceExcerpt: unknown[] }> }>;
      expect(shown.map((s) => s.label)).toEqual(dominant);
      for (const symptom of shown) {
        const first = symptom.cases[0];
        expect(first, symptom.label).toBeDefined();
        expect(Object.keys(first ?? {})).toEqual(expect.arrayContaining(['input', 'expected', 'output', 'reason', 'traceExcerpt']));
        expect(first?.expected, symptom.label).not.toBeNull();
        expect(first?.traceExcerpt.length, symptom.label).toBeGreaterThan(0);
      }
    }

    const entries = await log(dir);
    expect(entries).toHaveLength(2);
    for (const entry of entries) {
      expect(entry.costUsd).toBeGreaterThan(0);
      expect(entry.simulated).toBe(false);
      const commit = String(entry.commit);
      const iteration = String(entry.iteration).padStart(3, '0');
      const ref = `refs/agentdevel/rc/support-agent/iter-${iteration}`;
      expect(JSON.parse(git(dir, 'show', `${ref}:diagnostics/support-agent/iter-${iteration}/attempts.json`))).toMatchObject({ source: 'generated' });
      expect(git(dir, 'show', `${ref}:diagnostics/support-agent/iter-${iteration}/diagnosis.mjs`)).toContain('writeFileSync');
      expect(commit).toMatch(/^[0-9a-f]{40}$/);
    }
    const report = git(dir, 'show', `refs/agentdevel/rc/support-agent/iter-001:${entries[0]?.decision === 'promoted' ? 'releases/support-agent/v1' : 'releases/support-agent/rejected/iter-001'}/report.md`);
    expect(report).toMatch(/\| Model cost \| \$\d+\.\d{4} \|/);
    // Every call is charged to its iteration; the agent's and the critic's to the run they served, the others' to none.
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    const calls = sql.all<{ role: string; iteration: number | null; run: string | null; known: number }>(
      `SELECT role, iteration, run_id AS run, (SELECT COUNT(*) FROM runs WHERE runs.id = model_calls.run_id) AS known FROM model_calls`,
    );
    sql.close();
    expect(new Set(calls.map((c) => c.iteration))).toEqual(new Set([1, 2]));
    for (const call of calls) {
      if (call.role === 'agent' || call.role === 'critic') expect(call.known, `${call.role} call charged to ${call.run}`).toBe(1);
      else expect(call.run, call.role).toBeNull();
    }
    expect(report).not.toMatch(/Simulation/);
    cleanDecisions = entries.map((e) => [e.decision, e.f2pCases, e.p2fCases, e.tag]);
  }, 120_000);

  it('completes the same way when 20% of requests are answered 429 or 529, with no infrastructure error counted and no process left running', async () => {
    const dir = await claudeWorkspace();
    const counts = { faults: 0 };
    server.respond = withFaults(mockBrain, counts);
    const before = server.requests.length;
    // The command must end by itself; nothing here kills anything.
    const result = await cliWatched(['iterate', '--max-iterations', '2', '-C', dir], { env: env() });
    server.respond = mockBrain;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/iteration 2: /);
    // Tool hosts and diagnosis sandboxes ran below the command (so the check can fail), and none outlived it.
    expect(result.seen.filter((p) => p.command === 'node').length).toBeGreaterThanOrEqual(2);
    expect(result.survivors).toEqual([]);
    const served = server.requests.length - before;
    expect(served).toBeGreaterThan(50);
    expect(counts.faults / served).toBeGreaterThan(0.15);
    expect(infraErrors(dir)).toBe(0);
    const entries = await log(dir);
    expect(entries.map((e) => [e.decision, e.f2pCases, e.p2fCases, e.tag])).toEqual(cleanDecisions);
  }, 120_000);

  it('keeps a case whose calls keep failing out of the flips: an infra error, never a regression', async () => {
    const dir = await claudeWorkspace();
    const first = JSON.parse(readFileSync(path.join(dir, 'rubrics/orders/train.jsonl'), 'utf8').split('\n')[0] as string) as { id: string; user: { opening: string } };
    server.respond = (request) =>
      request.role === 'agent' && request.raw.includes(first.user.opening) ? { kind: 'error', status: 529, headers: { 'retry-after': '0.01' } } : mockBrain(request);
    const result = await cliAsync(['iterate', '--max-iterations', '1', '--json', '-C', dir], { env: env() });
    server.respond = mockBrain;
    expect(result.code).toBe(0);
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    const rows = sql.all<{ case_id: string; error: string }>(`SELECT case_id, error FROM records WHERE status = 'infra_error'`);
    sql.close();
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const row of rows) {
      expect(row.case_id).toBe(first.id);
      expect(row.error).toMatch(/529 after 4 retries/);
    }
    for (const entry of await log(dir)) {
      expect(entry.p2fCases).not.toContain(first.id);
      expect(entry.f2pCases).not.toContain(first.id);
    }
  }, 120_000);

  it('reports an outage of the synthesizer as an infrastructure failure (exit 3), not as "no valid RC"', async () => {
    const dir = await claudeWorkspace();
    server.respond = (request) => (request.role === 'synthesizer' ? { kind: 'error', status: 529, headers: { 'retry-after': '0.01' } } : mockBrain(request));
    const result = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir], { env: env() });
    server.respond = mockBrain;
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/529 after 4 retries/);
    expect(git(dir, 'for-each-ref', 'refs/agentdevel')).toBe('');
  }, 120_000);

  it('completes with exit 0 when every output is the smallest its schema allows, recording what happened', async () => {
    const dir = await claudeWorkspace();
    server.respond = minimalBrain;
    const result = await cliAsync(['iterate', '--max-iterations', '2', '--json', '-C', dir], { env: env() });
    server.respond = mockBrain;
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as { iterations: Array<{ kind: string; diagnosisSource: string; reasons: string[] }>; stopReason: string };
    expect(outcome.iterations[0]).toMatchObject({ kind: 'no_candidate', diagnosisSource: 'builtin' });
    expect(outcome.iterations[0]?.reasons.join(' ')).toMatch(/no valid RC/);
    expect(outcome.stopReason).toMatch(/no valid release candidate/);
    expect(result.stderr).toMatch(/built-in diagnosis script/);
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    const decision = sql.get<{ outcome: string; reasons: string }>(`SELECT outcome, reasons FROM decisions`);
    sql.close();
    expect(decision?.outcome).toBe('no_candidate');
    expect(decision?.reasons).toMatch(/no valid RC/);
    expect(decision?.reasons).toMatch(/built-in diagnosis/);
  }, 120_000);
});

describe('one symptom vocabulary', () => {
  it('refuses a coined label in the report and in the RC targets, repairs both, and promotes the correct fix with its hit rate', async () => {
    const dir = await claudeWorkspace();
    const builtin = readFileSync(`${repoRoot}src/domain/builtin-diagnosis.mjs`, 'utf8');
    // A diagnostician that renames the critic's tool_error to a label of its own.
    const coining = builtin.replace('const infraErrors =', "for (const r of failing) if (r.critic?.label === 'tool_error') r.critic.label = 'order_id_not_canonical';\nconst infraErrors =");
    expect(coining).not.toBe(builtin);
    const diagnosticianTexts: string[] = [];
    const synthesizerBodies: Array<Record<string, unknown>> = [];
    server.respond = (request) => {
      if (request.role === 'diagnostician') {
        const text = userText(request.body);
        diagnosticianTexts.push(text);
        return toolAnswer('submit_script', { script: text.includes('<repair>') ? builtin : coining });
      }
      if (request.role === 'synthesizer') {
        synthesizerBodies.push(request.body);
        const text = userText(request.body);
        const diagnosis = JSON.parse(between(text, '<diagnosis>', '</diagnosis>')) as DiagnosisReport;
        const files = [...text.matchAll(/<file path="([^"]+)">\n([\s\S]*?)\n<\/file>/g)].map((m) => ({ path: m[1] as string, content: m[2] as string }));
        // The order-id normalisation, as a strong model would write it; first aimed at a label of its own.
        const onlyToolErrors = { ...diagnosis, dominantSymptoms: diagnosis.dominantSymptoms.filter((d) => d.label === 'tool_error') };
        const fix = simulatedSynthesis({ model: 'x', blueprintName: 'support-agent', blueprintRoot: 'blueprints/support-agent', blueprint: blueprintBrief('tool-loop'), evidence: { budgetTokens: 0, usedTokens: 0, symptoms: [] }, files, diagnosis: onlyToolErrors, history: [], taxonomy: [], task: { rubric: '', environmentApi: null }, repair: null });
        const repairing = (request.body.messages as unknown[]).length > 1;
        return toolAnswer('submit_release_candidate', { ...fix, intent: { ...fix.intent, targets: [repairing ? 'tool_error' : 'order_id_not_canonical'] } });
      }
      return mockBrain(request);
    };
    const result = await cliAsync(['iterate', '--max-iterations', '1', '--json', '-C', dir], { env: env() });
    server.respond = mockBrain;
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(0);

    // The report's coined label was refused, and the repair request showed the script and the exact error.
    expect(diagnosticianTexts).toHaveLength(2);
    const repair = between(diagnosticianTexts[1] as string, '<repair>', '</repair>');
    expect(repair).toContain(coining);
    expect(repair).toMatch(/"order_id_not_canonical" is not a symptom label of the taxonomy/);
    expect(result.stderr).toMatch(/diagnosis script attempt 1 failed: REPORT\.json uses labels outside the symptom vocabulary/);

    // The coined target was refused by the tool's schema (an enum of the taxonomy) and repaired in place.
    expect(synthesizerBodies).toHaveLength(2);
    expect(JSON.stringify(synthesizerBodies[1]?.messages)).toMatch(/intent\.targets\.0: Invalid option: expected one of/);
    // That repair is warned about and recorded with the iteration, like the diagnosis repair.
    expect(result.stderr).toMatch(/RC attempt 1: the synthesizer's answer was refused and repaired: intent\.targets\.0: Invalid option/);
    const recorded = JSON.parse(git(dir, 'show', 'refs/agentdevel/rc/support-agent/iter-001:diagnostics/support-agent/iter-001/synthesis-attempts.json')) as { refused: string[] };
    expect(recorded.refused[0]).toMatch(/intent\.targets\.0: Invalid option/);

    const [entry] = await log(dir);
    expect(entry).toMatchObject({ decision: 'promoted', targets: ['tool_error'] });
    expect(Number(entry?.f2p)).toBeGreaterThan(0);
    const hitRate = Number(/hit rate (\d+(?:\.\d+)?)%/.exec((entry?.reasons as string[]).join(' '))?.[1]);
    expect(hitRate).toBeGreaterThanOrEqual(50);
  }, 120_000);
});

describe('the critic is implementation-blind', () => {
  it('sends nothing of the blueprint to the critic (canary in the prompt template and the tool wrappers)', async () => {
    const canary = 'CANARY-d41d8cd98f-not-for-the-critic';
    const dir = await claudeWorkspace((d) => {
      const prompt = path.join(d, 'blueprints/support-agent/system.hbs');
      writeFileSync(prompt, `${readFileSync(prompt, 'utf8')}\nHouse rule ${canary}.\n{{> partials/house}}\n`);
      mkdirSync(path.join(d, 'blueprints/support-agent/partials'));
      writeFileSync(path.join(d, 'blueprints/support-agent/partials/house.hbs'), `Partial ${canary}.\n`);
      const manifest = path.join(d, 'blueprints/support-agent/blueprint.json');
      writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"A customer-service agent', `"${canary} A customer-service agent`));
      for (const tool of ['get_order', 'find_customer']) {
        const file = path.join(d, `blueprints/support-agent/tools/${tool}.ts`);
        writeFileSync(file, `${readFileSync(file, 'utf8').replace("description: '", `description: '${canary} `)}// ${canary}\n`);
      }
    });
    server.respond = mockBrain;
    const before = server.requests.length;
    const result = await cliAsync(['run', '-C', dir], { env: env() });
    expect(result.code).toBe(0);
    const requests = server.requests.slice(before);
    const critic = requests.filter((r) => r.role === 'critic');
    expect(critic.length).toBe(16);
    for (const request of critic) {
      expect(request.raw).not.toContain(canary);
      // The fields every role gets (date, runtime, taxonomy) are there, and carry no blueprint byte.
      expect(request.raw).toContain(`Today's date: ${new Date().toISOString().slice(0, 10)}.`);
      expect(request.raw).toContain(`Node.js ${process.version}`);
      expect(request.raw).toContain('<taxonomy>');
    }
    // The canary is really in the blueprint the agent runs with, so the check above can fail.
    expect(requests.filter((r) => r.role === 'agent').every((r) => r.raw.includes(canary) && r.raw.includes(`Partial ${canary}`))).toBe(true);

    // The requirements layer's review is a critic too: a candidate that moves cases is reviewed, blind to the blueprint.
    git(dir, 'checkout', '-q', '-b', 'asks-first');
    const prompt = path.join(dir, 'blueprints/support-agent/system.hbs');
    writeFileSync(prompt, `${readFileSync(prompt, 'utf8')}\nBefore you cancel an order or return items, state exactly what you will do and the refund amount, and ask the customer to confirm (yes/no). Act only after a clear yes; if they say no, change nothing.\n`);
    git(dir, 'commit', '-qam', 'ask before acting');
    git(dir, 'checkout', '-q', 'main');
    const gateFrom = server.requests.length;
    const gated = await cliAsync(['gate', '--candidate', 'asks-first', '--json', '-C', dir], { env: env() });
    expect(gated.code, gated.stdout + gated.stderr).toBe(0);
    const reviews = server.requests.slice(gateFrom).filter((r) => r.raw.includes('report_violations'));
    expect(reviews.length).toBeGreaterThan(0);
    for (const review of reviews) {
      expect(review.role).toBe('reviewer');
      expect(review.raw).not.toContain(canary);
      expect(review.raw).toContain('<requirements>');
    }
    const accepted = JSON.parse(gated.stdout) as { layers: Array<{ layer: string; verdict: string }> };
    expect(accepted.layers.find((l) => l.layer === 'requirements')?.verdict).toBe('pass');

    // A reviewer that finds a written requirement broken turns that accept into a reject: the
    // flips still accept, and the requirements layer vetoes.
    server.respond = (request) => {
      if (!(request.body.tools as Array<{ name: string }> | undefined)?.some((t) => t.name === 'report_violations')) return mockBrain(request);
      const caseId = /<trace case="([^"]+)">/.exec(userText(request.body))?.[1] ?? 'none';
      return toolAnswer('report_violations', { violations: [{ requirement: 'no-unwanted-change', caseId, reason: 'cancelled an order the customer did not ask about' }] });
    };
    const vetoed = await cliAsync(['gate', '--candidate', 'asks-first', '--json', '-C', dir], { env: env() });
    expect(vetoed.code, vetoed.stdout + vetoed.stderr).toBe(1);
    const rejected = JSON.parse(vetoed.stdout) as { layers: Array<{ layer: string; verdict: string }> };
    expect(rejected.layers.find((l) => l.layer === 'flips')?.verdict).toBe('accept');
    expect(rejected.layers.find((l) => l.layer === 'requirements')?.verdict).toBe('veto');
  }, 180_000);
});

describe('record and replay', () => {
  it('re-runs an iteration from its cassette with no network, reaching the same decision, and fails clearly on a miss', async () => {
    const original = await claudeWorkspace();
    const copy = path.join(tempDir(), 'copy');
    git(path.dirname(copy), 'clone', '-q', original, copy);
    const cassette = path.join(tempDir(), 'cassette');
    server.respond = mockBrain;
    const recordedFrom = server.requests.length;
    const recorded = await cliAsync(['iterate', '--max-iterations', '1', '--record', cassette, '-C', original], { env: env() });
    expect(recorded.code).toBe(0);
    // Every role that agentdevel writes the prompt for is told the date and the runtime; the
    // cassette keeps them, so a replay on another day sends the same requests.
    const facts = JSON.parse(readFileSync(path.join(cassette, 'facts.json'), 'utf8')) as { today: string; node: string };
    expect(facts).toMatchObject({ today: new Date().toISOString().slice(0, 10), node: process.version });
    const told = server.requests.slice(recordedFrom).filter((r) => r.role !== 'agent');
    expect(new Set(told.map((r) => r.role))).toEqual(new Set(['critic', 'diagnostician', 'synthesizer']));
    for (const request of told) expect(request.raw).toContain(`Today's date: ${facts.today}.`);

    const offline = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: undefined };
    const before = server.requests.length;
    const replayed = await cliAsync(['iterate', '--max-iterations', '1', '--replay', cassette, '-C', copy], { env: offline });
    expect(replayed.stderr).not.toMatch(/internal error/);
    expect(replayed.code).toBe(0);
    expect(server.requests.length).toBe(before);
    const strip = (entries: Array<Record<string, unknown>>) => entries.map((e) => [e.decision, e.f2pCases, e.p2fCases, e.tag, e.costUsd]);
    expect(strip(await log(copy))).toEqual(strip(await log(original)));

    const train = path.join(copy, 'rubrics/orders/train.jsonl');
    writeFileSync(train, readFileSync(train, 'utf8').replace('return the', 'send back the'));
    const miss = await cliAsync(['run', '--replay', cassette, '-C', copy], { env: offline });
    expect(miss.code).toBe(3);
    expect(miss.stderr).toMatch(/REPLAY_MISS: --replay: the cassette in .* has no response for this (agent|critic) request/);
  }, 120_000);
});

describe('a run under a rate limit', () => {
  it('uses the limit without losing a case: every case-trial graded, none an infrastructure error', async () => {
    const limited = await startFakeAnthropic(lookupThenAnswer, { requestsPerMinute: 900, burst: 4, latencyMs: 50 });
    try {
      const dir = path.join(tempDir('agentdevel-rate-limit-'), 'workspace');
      mkdirSync(dir);
      writeScaleWorkspace(dir, { runtime: 'tool-loop', cases: 30, concurrency: 12, model: CLAUDE });
      const result = await cliAsync(['run', '--json', '-C', dir], { env: { ANTHROPIC_BASE_URL: limited.url, ANTHROPIC_API_KEY: KEY } });
      expect(result.stderr).not.toMatch(/internal error/);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ graded: 30, passed: 30 });
      expect(infraErrors(dir)).toBe(0);
      // Two requests a case, each accepted once; the few refused were retried.
      expect(limited.limited.accepted).toBe(60);
      expect(limited.limited.refused).toBeLessThan(15);
    } finally {
      await limited.close();
    }
  }, 120_000);
});

describe('judge once', () => {
  it("sends no critic request twice: a deterministic agent's repeated and confirmation trials reuse the verdict, the ledger counts the calls saved, and report.md shows them", async () => {
    const critic = await startFakeAnthropic(mockBrain);
    try {
      const dir = await claudeWorkspace(onlyTheCritic);
      const result = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir], { env: { ANTHROPIC_BASE_URL: critic.url, ANTHROPIC_API_KEY: KEY } });
      expect(result.stderr).not.toMatch(/internal error/);
      expect([0, 1]).toContain(result.code);
      const verdictRequests = critic.requests.filter((r) => (r.body.tools as Array<{ name: string }>)[0]?.name === 'submit_verdict');
      const bodies = verdictRequests.map((r) => r.raw);
      expect(bodies.length).toBeGreaterThan(0);
      expect(new Set(bodies).size).toBe(bodies.length);
      const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
      try {
        const judged = Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM records WHERE critic IS NOT NULL`)?.n);
        const reused = Number(sql.get<{ n: number }>(`SELECT COALESCE(SUM(count), 0) AS n FROM spared_calls WHERE reason = 'reused' AND role = 'critic'`)?.n);
        const confirmations = Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM records JOIN runs ON runs.id = records.run_id WHERE runs.purpose = 'confirm'`)?.n);
        // Every verdict in a record came from one call or from a reuse, and only the calls made are rows of the ledger.
        expect(confirmations).toBeGreaterThan(0);
        expect(reused).toBeGreaterThan(0);
        expect(reused).toBeGreaterThanOrEqual(confirmations);
        expect(Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM model_calls WHERE role = 'critic'`)?.n)).toBe(critic.requests.length);
        expect(judged).toBeGreaterThanOrEqual(verdictRequests.length + confirmations);
      } finally {
        sql.close();
      }
      const audit = git(dir, 'for-each-ref', '--format=%(refname)', 'refs/agentdevel/rc').split('\n')[0] as string;
      const report = git(dir, 'show', `${audit}:${git(dir, 'ls-tree', '-r', '--name-only', audit, 'releases').split('\n').find((f) => f.endsWith('report.md'))}`);
      expect(report).toMatch(/\| Critic calls saved \| .*\d+ calls saved by judging identical traces once/);
    } finally {
      await critic.close();
    }
  }, 240_000);

  it('writes no ledger row for a spared critic call in a 100-case run, and still counts the calls spared', async () => {
    const dir = path.join(tempDir('agentdevel-spared-'), 'workspace');
    mkdirSync(dir);
    writeScaleWorkspace(dir, { runtime: 'command', cases: 100, concurrency: 8 });
    const result = await cliAsync(['run', '--json', '-C', dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ graded: 100, passed: 100 });
    const sql = openSql(path.join(dir, '.agentdevel', 'state.db'));
    try {
      expect(Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM model_calls`)?.n)).toBe(0);
      expect(sql.all(`SELECT role, reason, count FROM spared_calls`)).toEqual([{ role: 'critic', reason: 'policy', count: 100 }]);
      // No record repeats a "not asked" verdict: a critic not asked leaves none.
      expect(Number(sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM records WHERE critic IS NOT NULL`)?.n)).toBe(0);
    } finally {
      sql.close();
    }
  }, 120_000);
});

describe('invalid model output', () => {
  it('ends iterate with MODEL_OUTPUT_INVALID and a hint quoting the rule and the answer when the critic always answers invalidly, never MODEL_UNAVAILABLE', async () => {
    const critic = await startFakeAnthropic((request) =>
      request.role === 'critic' ? toolAnswer('submit_verdict', { pass: true, label: 'Looks Fine!', description: 'fine' }) : { kind: 'error', status: 400 },
    );
    try {
      const dir = await claudeWorkspace(onlyTheCritic);
      const result = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir], { env: { ANTHROPIC_BASE_URL: critic.url, ANTHROPIC_API_KEY: KEY } });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^error MODEL_OUTPUT_INVALID: every case-trial of run \S+ failed: the critic's answer was invalid after its repair on all \d+/m);
      expect(result.stderr).toMatch(/The critic's answer broke this rule: label: .*snake_case/);
      expect(result.stderr).toContain('"label": "Looks Fine!"');
      expect(result.stderr).not.toMatch(/MODEL_UNAVAILABLE|could not be reached/);
      expect(git(dir, 'for-each-ref', 'refs/agentdevel')).toBe('');
    } finally {
      await critic.close();
    }
  }, 120_000);

  it('counts both causes when invalid answers and outages are mixed, and takes the code from the one that dominated', async () => {
    // The critic of 4 of the 16 cases is refused by the API (an outage, not retried); the others answer invalidly.
    const outage = new Set(['train-001', 'train-002', 'train-003', 'train-004']);
    const critic = await startFakeAnthropic((request) => {
      if (request.role !== 'critic') return { kind: 'error', status: 400 };
      const caseId = /"caseId":"([^"]+)"/.exec(userText(request.body))?.[1] ?? '';
      return outage.has(caseId) ? { kind: 'error', status: 400 } : toolAnswer('submit_verdict', { pass: true, label: 'Looks Fine!', description: 'fine' });
    });
    try {
      const dir = await claudeWorkspace(onlyTheCritic);
      const result = await cliAsync(['iterate', '--max-iterations', '1', '-C', dir], { env: { ANTHROPIC_BASE_URL: critic.url, ANTHROPIC_API_KEY: KEY } });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^error MODEL_OUTPUT_INVALID: every case-trial of run \S+ failed: the critic's answer was invalid after its repair on 12 of 16, and 4 for infrastructure reasons \(first: critic: the model API refused the critic's request/m);
      expect(result.stderr).toMatch(/The critic's answer broke this rule: label: .*The other 4 could not reach the model API/);
    } finally {
      await critic.close();
    }
  }, 120_000);
});
