import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/ports/clock.ts';
import type { EvidencePointer, GradientClaim } from '../../src/domain/gradient.ts';
import { zeroUsage, type ModelPort, type SynthesisRequest } from '../../src/domain/ports/model.ts';
import { silentReporter } from '../../src/domain/ports/reporter.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { createMockEngine } from '../../src/adapters/engines/mock/index.ts';
import { readGradient } from '../../src/pipeline/loop/gradient.ts';
import { iterate } from '../../src/pipeline/loop/iterate.ts';
import { openWorkspace } from '../../src/app/workspace.ts';
import { blueprintComponents } from '../../src/domain/blueprint-components.ts';
import { buildGradient } from '../../src/stages/gradient/build.ts';
import { readTrace } from '../../src/stages/run/trace-file.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cli, exampleWorkspace, git, tempDir } from '../helpers/workspace.ts';
import { caseRecord } from '../helpers/records.ts';
import { wordDiff } from '../../src/adapters/text-diff/word-diff.ts';
import { renderReportTemplate } from '../../src/adapters/template/report-templates.ts';
import { blueprintCheckRunner } from '../../src/adapters/process/blueprint-checks.ts';
import { runSandboxed } from '../../src/adapters/process/sandbox.ts';
import { runScorerScript } from '../../src/adapters/process/scorer-scripts.ts';
import { localExecutor } from '../../src/adapters/runtimes/local-executor.ts';

describe('gradient records', () => {
  it('are written to git each iteration from executed evidence; a model-phrased claim without resolvable evidence is dropped and counted; the diagnostician and synthesizer get them', async () => {
    const dir = await exampleWorkspace();
    const workspace = await openWorkspace(dir, { lock: { command: 'test', waitMs: 0 }, clock: systemClock });
    try {
      const mock = createMockEngine();
      const handed: { synthesizer: SynthesisRequest['gradient'][]; diagnostician: number } = { synthesizer: [], diagnostician: 0 };
      let supported: GradientClaim | null = null;
      const model: ModelPort = {
        ...mock,
        writeDiagnosisScript: async (request) => {
          if (request.gradient) handed.diagnostician += 1;
          return mock.writeDiagnosisScript(request);
        },
        synthesize: async (request) => {
          handed.synthesizer.push(request.gradient);
          return mock.synthesize(request);
        },
        // A scripted model: one claim that cites a real tool error, one that cites an event no
        // trace has, and one that cites nothing.
        phraseGradient: async ({ gradient }) => {
          const erring = gradient.components.find((c) => c.introducedErrors.length > 0);
          const error = erring?.introducedErrors[0];
          if (!erring || !error) throw new Error('the example should have a failing tool call');
          supported = { component: erring.component, field: 'introducedError', text: `${erring.component} fails on ids written with a "#"`, pointers: [error.pointer] };
          const planted: EvidencePointer = { kind: 'trace_event', runId: gradient.runId, caseId: error.caseId, trial: error.trial, event: 9_999 };
          return {
            value: {
              claims: [
                supported,
                { component: erring.component, field: 'introducedError', text: 'it silently refunds the wrong card', pointers: [planted] },
                { component: 'section:you-are-the', field: 'missing', text: 'nobody handles gift cards', pointers: [] },
              ],
            },
            usage: zeroUsage,
          };
        },
      };
      await iterate({ workspace, model, reporter: silentReporter, redact: (t) => t, clock: systemClock, parentEnv: {}, checks: blueprintCheckRunner({}), sandbox: runSandboxed, scorerScripts: runScorerScript, localExecutor, textDiff: wordDiff, templates: renderReportTemplate }, { maxIterations: 1 });

      // In git, on its own ref, whatever the iteration did.
      expect(git(dir, 'cat-file', '-t', 'refs/agentdevel/gradient/support-agent/iter-001')).toBe('commit');
      const document = await readGradient({ workspace }, 1);
      expect(document).not.toBeNull();
      if (!document) return;
      expect(document.schema).toBe('agentdevel/gradient@2');
      expect(document.dropped.count).toBe(2);
      expect(document.dropped.claims.map((c) => c.text)).toEqual(['it silently refunds the wrong card', 'nobody handles gift cards']);
      expect(document.dropped.claims[0]?.reason).toMatch(/does not resolve: .* event 9999/);
      const kept = document.components.flatMap((c) => c.claims);
      expect(kept).toEqual([supported]);

      // One record per component: the agent, tool wrappers and prompt sections (no partials, no members in the example).
      const ids = document.components.map((c) => c.component);
      expect(ids).toEqual(expect.arrayContaining(['agent', 'tool:find_customer', 'tool:get_order', 'tool:cancel_order', 'tool:return_items', 'tool:list_orders', 'section:you-are-the']));
      expect(document.components.some((c) => c.introducedErrors.length > 0)).toBe(true);
      expect(document.components.some((c) => c.fulfilled.length > 0)).toBe(true);
      expect(document.components.some((c) => c.missing.length > 0)).toBe(true);

      // Every pointer resolves to a trace event or a verdict in the store.
      const records = new Map(workspace.store.records(document.runId).map((r) => [`${r.caseId}#${r.trial}`, r]));
      const pointers = document.components.flatMap((c) => [...c.evidence.pointers, ...c.contributions.map((k) => k.pointer), ...c.introducedErrors.map((e) => e.pointer), ...c.missing.flatMap((m) => m.pointers), ...c.claims.flatMap((k) => k.pointers)]);
      expect(pointers.length).toBeGreaterThan(0);
      for (const pointer of pointers) {
        const record = records.get(`${pointer.caseId}#${pointer.trial}`);
        expect(record, JSON.stringify(pointer)).toBeDefined();
        if (!record) continue;
        if (pointer.kind === 'trace_event') expect((await readTrace(workspace.tracesRoot, record.traceRef))?.length ?? 0).toBeGreaterThan(pointer.event);
        if (pointer.kind === 'scorer') expect(record.scorer).not.toBeNull();
        if (pointer.kind === 'requirement') {
          const judged = record.critic?.requirements?.some((r) => r.id === pointer.requirement) ?? false;
          expect(judged || record.scorer !== null).toBe(true);
        }
      }
      expect(handed.diagnostician).toBeGreaterThan(0);
      expect(handed.synthesizer.length).toBeGreaterThan(0);
      expect(handed.synthesizer.every((g) => g?.runId === document.runId && g.dropped.count === 2)).toBe(true);
    } finally {
      await workspace.close();
    }
    // Both reports of the iteration's decision say how many claims were dropped, and which.
    const audit = 'refs/agentdevel/rc/support-agent/iter-001';
    const folder = git(dir, 'show', '--name-only', '--format=', audit).split('\n').find((f) => f.endsWith('/report.md'))?.replace(/\/report\.md$/, '');
    expect(folder).toBeDefined();
    const markdown = git(dir, 'show', `${audit}:${folder}/report.md`);
    expect(markdown).toMatch(/## Gradient records\n\n\d+ records on `refs\/agentdevel\/gradient\/support-agent\/iter-001`\. Model-phrased claims: \*\*2 dropped\*\* \(evidence that does not resolve\), 1 kept\./);
    expect(markdown).toContain('| it silently refunds the wrong card |');
    const html = git(dir, 'show', `${audit}:${folder}/report.html`);
    expect(html).toMatch(/<h2 id="gradient">Gradient records<\/h2><p>\d+ records on <code>refs\/agentdevel\/gradient\/support-agent\/iter-001<\/code>\. Model-phrased claims: <strong>2 dropped<\/strong>/);
    expect(html).toContain('nobody handles gift cards');
    // `agentdevel report` rebuilds the HTML from git alone, with the same section.
    const out = path.join(tempDir(), 'report');
    const rebuilt = cli(['report', 'iter-001', '--out', out, '--json', '-C', dir]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(readFileSync(JSON.parse(rebuilt.stdout).report as string, 'utf8')).toMatch(/<strong>2 dropped<\/strong>/);
  }, 120_000);

  it('make members a component kind, attributed from the member name a crew trace carries', () => {
    const files = [
      { path: 'blueprints/crew/blueprint.json', content: JSON.stringify({ prompt: 'system.hbs', tools: ['tools/search.ts'] }) },
      { path: 'blueprints/crew/system.hbs', content: '# Role\nYou lead.\n\n# Rules\nBe brief.\n' },
      { path: 'blueprints/crew/partials/house.hbs', content: 'House style.' },
      { path: 'blueprints/crew/tools/search.ts', content: "export default { name: 'search' }" },
    ];
    const trace = [
      { type: 'start', caseId: 'c1', trial: 0 },
      { type: 'message', role: 'assistant', text: 'plan', member: 'planner' },
      { type: 'tool_call', id: 't1', name: 'search', args: {}, member: 'coder' },
      { type: 'tool_result', id: 't1', ok: false, error: 'boom', member: 'coder' },
      { type: 'final', output: 'x' },
    ] as unknown as TraceEvent[];
    const components = blueprintComponents(files, 'blueprints/crew', { traceMembers: ['planner', 'coder'] });
    expect(components.map((c) => c.id)).toEqual(['agent', 'member:coder', 'member:planner', 'tool:search', 'partial:partials/house', 'section:role', 'section:rules']);
    const document = buildGradient({
      iteration: 1,
      blueprint: 'crew',
      release: 'r',
      runId: 'run-1',
      components,
      trials: [
        {
          record: caseRecord('c1', false, { output: 'x', traceRef: 'x', scorer: { pass: false, checks: [] }, critic: { pass: true, label: 'ok', description: '', requirements: [{ id: 'brief', pass: true, reason: '' }] } }),
          trace,
          requirements: [{ id: 'brief', text: 'answer briefly', symptoms: [] }],
        },
      ],
    });
    const byId = new Map(document.components.map((c) => [c.component, c]));
    expect(byId.get('tool:search')?.introducedErrors.map((e) => e.pointer)).toEqual([{ kind: 'trace_event', runId: 'run-1', caseId: 'c1', trial: 0, event: 3 }]);
    // Taking part is not contributing: the planner only talked, and the answer is the agent's.
    expect(byId.get('member:planner')?.evidence.caseIds).toEqual(['c1']);
    expect(byId.get('member:planner')?.fulfilled).toEqual([]);
    expect(byId.get('agent')?.fulfilled).toEqual(['brief']);
    expect(byId.get('agent')?.contributions).toEqual([{ caseId: 'c1', trial: 0, basis: 'final-answer', pointer: { kind: 'trace_event', runId: 'run-1', caseId: 'c1', trial: 0, event: 4 } }]);
    expect(byId.get('member:coder')?.evidence.caseIds).toEqual(['c1']);
    expect(byId.get('member:coder')?.fulfilled).toEqual([]);
    expect(byId.get('member:coder')?.introducedErrors.map((e) => e.message)).toEqual(['boom']);
  });

  it('credit a member with fulfilling a requirement only where it contributed: a judged-helpful call, else a result used later', () => {
    const manifest = {
      runtime: 'crew',
      orchestrator: { prompt: 'system.hbs', tools: [] },
      members: [
        { name: 'lookup', description: 'Looks orders up.', prompt: 'members/lookup.hbs', tools: [] },
        { name: 'notes', description: 'Delivery notes.', prompt: 'members/notes.hbs', tools: [] },
      ],
    };
    const files = [
      { path: 'blueprints/crew/blueprint.json', content: JSON.stringify(manifest) },
      { path: 'blueprints/crew/system.hbs', content: 'You lead.\n' },
      { path: 'blueprints/crew/members/lookup.hbs', content: 'You look up.\n' },
      { path: 'blueprints/crew/members/notes.hbs', content: 'You write notes.\n' },
    ];
    const trace = [
      { type: 'start', caseId: 'c1', trial: 0 },
      { type: 'tool_call', id: 't1', name: 'lookup', args: { context: 'order #W1001' }, agent: 'orchestrator' },
      { type: 'tool_result', id: 't1', ok: true, result: 'ORDER {"id":"W1001","deliveredOn":"2026-05-01"}', agent: 'orchestrator' },
      { type: 'tool_call', id: 't2', name: 'notes', args: { context: 'order W1001 is delivered' }, agent: 'orchestrator' },
      { type: 'tool_result', id: 't2', ok: true, result: 'Shipping takes 3 to 5 business days.', agent: 'orchestrator' },
      { type: 'message', role: 'assistant', text: 'Order W1001 was delivered on 2026-05-01.', agent: 'orchestrator' },
      { type: 'final', output: 'Order W1001 was delivered on 2026-05-01.', agent: 'orchestrator' },
    ] as unknown as TraceEvent[];
    const components = blueprintComponents(files, 'blueprints/crew');
    expect(components.map((c) => c.id)).toEqual(['orchestrator', 'member:lookup', 'member:notes', 'section:you-lead']);
    const gradientWith = (helpful: Map<string, boolean> | null) =>
      new Map(
        buildGradient({
          iteration: 1,
          blueprint: 'crew',
          release: 'r',
          runId: 'run-1',
          components,
          helpful,
          trials: [
            {
              record: caseRecord('c1', true, { output: 'x', traceRef: 'x', critic: { pass: true, label: 'ok', description: '', requirements: [{ id: 'answer', pass: true, reason: '' }] } }),
              trace,
              requirements: [{ id: 'answer', text: 'answer the question', symptoms: [] }],
            },
          ],
        }).components.map((c) => [c.component, c]),
      );
    // No judge: lookup's order id and date reappear in the answer; the notes' text never does.
    const unjudged = gradientWith(null);
    expect(unjudged.get('member:lookup')?.fulfilled).toEqual(['answer']);
    expect(unjudged.get('member:lookup')?.contributions).toEqual([{ caseId: 'c1', trial: 0, basis: 'result-used', pointer: { kind: 'trace_event', runId: 'run-1', caseId: 'c1', trial: 0, event: 2 } }]);
    expect(unjudged.get('member:notes')?.evidence.caseIds).toEqual(['c1']);
    expect(unjudged.get('member:notes')?.fulfilled).toEqual([]);
    expect(unjudged.get('orchestrator')?.fulfilled).toEqual(['answer']);
    // The judge's verdict decides where there is one.
    const judged = gradientWith(new Map([['c1#0:t1', false], ['c1#0:t2', true]]));
    expect(judged.get('member:lookup')?.fulfilled).toEqual([]);
    expect(judged.get('member:notes')?.fulfilled).toEqual(['answer']);
    expect(judged.get('member:notes')?.contributions[0]?.basis).toBe('judge');
  });
});
