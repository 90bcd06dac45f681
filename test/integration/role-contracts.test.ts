// Every role's request says in its prose only what its answer's schema can carry, and an answerer
// that reads nothing but the schema is accepted at its first answer. The prose names the fields
// of an answer in double quotes ("labelMerges", "rationale"); the test reads every quoted name of
// the rendered request and finds it in the tool's JSON Schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blueprintBrief } from '../../src/adapters/blueprint/brief.ts';
import { createClaudeEngine } from '../../src/adapters/engines/anthropic/adapter.ts';
import { createMessagesClient } from '../../src/adapters/engines/anthropic/messages-client.ts';
import {
  criticCall,
  diagnosticianCall,
  judgeCall,
  messagesParams,
  orchestratorPromptCall,
  requirementsReviewCall,
  synthesizerCall,
  writerCall,
  type StructuredCall,
} from '../../src/adapters/engines/anthropic/requests.ts';
import type { CriticRequest, DiagnosisScriptRequest, HelpfulnessRequest, MemberWriteRequest, ModelPort, OrchestratorPromptRequest, RequirementsReviewRequest, SynthesisRequest } from '../../src/domain/ports/model.ts';
import type { TraceEvent } from '../../src/domain/trace.ts';
import { blueprintManifestSchema } from '../../src/domain/blueprint-manifest.ts';
import { diagnosisReportSchema } from '../../src/domain/diagnosis.ts';
import { z } from '../../src/domain/zod.ts';
import { startFakeAnthropic, toolAnswer, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { schemaOnlyAnswer } from '../helpers/schema-only-answer.ts';

const facts = { today: '2031-02-03', node: 'v20.99.0', builtins: { available: ['structuredClone'], missing: [] } };
const MODEL = 'claude-sonnet-5-5';
const crewTrace: TraceEvent[] = [
  { type: 'start', caseId: 'train-001', trial: 0 },
  { type: 'message', agent: 'orchestrator', role: 'user', text: 'refund W1' },
  { type: 'tool_call', agent: 'orchestrator', id: 't1', name: 'lookup', args: { context: 'W1' } },
  { type: 'tool_result', agent: 'orchestrator', id: 't1', ok: true, result: 'ORDER {}' },
  { type: 'final', agent: 'orchestrator', output: 'done' },
];
const taxonomy = [
  { label: 'tool_error', description: 'a tool failed' },
  { label: 'wrong_amount', description: 'a wrong figure' },
];
const report = { summary: '', totals: { records: 0, failing: 0, infraErrors: 0 }, dominantSymptoms: [], patterns: [], representativeCases: [], affectedSurface: [] };
const task = { rubric: 'RUBRIC', environmentApi: null };
const crewFiles = [{ path: 'blueprints/bp/blueprint.json', content: JSON.stringify({ runtime: 'crew', orchestrator: { prompt: 'system.hbs', tools: [] }, members: [{ name: 'lookup', description: 'd', prompt: 'members/lookup.hbs', tools: ['tools/get_order.ts'], sees: ['context'] }] }) }];

const critic: CriticRequest = { model: MODEL, rubric: 'R', trace: crewTrace, scorer: null, taxonomy, requirements: [{ id: 'confirm_first', text: 'confirm first', symptoms: [] }] };
const reviewer: RequirementsReviewRequest = { model: MODEL, rubric: 'R', requirements: [{ id: 'confirm_first', text: 'confirm first', symptoms: [] }], cases: [{ caseId: 'train-001', trace: crewTrace }] };
const judge: HelpfulnessRequest = { model: MODEL, component: { kind: 'member', name: 'lookup', description: 'd' }, trace: crewTrace, callIds: ['t1'] };
const diagnostician = (labels: number): DiagnosisScriptRequest => ({
  model: MODEL,
  recordSchema: 'RECORDS',
  sampleRecords: [{ caseId: 'train-001', trace: crewTrace }],
  limits: { timeoutMs: 10_000, memoryMb: 128 },
  taxonomy: taxonomy.slice(0, labels),
  previousScript: null,
  previousReport: null,
  lastRc: null,
  caseChanges: null,
  repair: null,
  failingCases: ['train-001', 'train-002'],
});
const synthesizer: SynthesisRequest = {
  model: MODEL,
  blueprintName: 'bp',
  blueprintRoot: 'blueprints/bp',
  blueprint: blueprintBrief('tool-loop'),
  evidence: { budgetTokens: 0, usedTokens: 0, symptoms: [] },
  files: [],
  diagnosis: report,
  history: [],
  taxonomy,
  task,
  repair: null,
};
const writer: MemberWriteRequest = { model: MODEL, blueprintName: 'bp', blueprintRoot: 'blueprints/bp', files: crewFiles, tools: [{ file: 'tools/get_order.ts', name: 'get_order', description: 'd' }], archive: [], symptoms: [], task, warmup: null } as unknown as MemberWriteRequest;
const orchestrator: OrchestratorPromptRequest = {
  model: MODEL,
  blueprintName: 'bp',
  blueprintRoot: 'blueprints/bp',
  current: { path: 'blueprints/bp/system.hbs', content: 'You are the orchestrator.' },
  team: [],
  task,
  standing: { designCases: 8, designFailures: [], releaseFailures: ['wrong_amount'], fixesRequired: 1 },
};

/** Each role's call builder with a request, and the engine method that sends the same request. */
// The diagnostician's answer is a script, and the script's output is REPORT.json: the report's schema is the second half of its contract.
const reportSchema = z.toJSONSchema(diagnosisReportSchema) as Schema;
// The synthesizer's edits write files, blueprint.json among them: the manifest's schema is what those keys must fit.
const manifestSchema = z.toJSONSchema(blueprintManifestSchema, { io: 'input', unrepresentable: 'any' }) as Schema;
const roles: Array<{ name: string; call: StructuredCall<unknown>; send: (engine: ModelPort) => Promise<unknown>; alsoWrites?: Schema }> = [
  { name: 'critic', call: criticCall(critic, facts), send: (e) => e.criticize(critic) },
  { name: 'reviewer', call: requirementsReviewCall(reviewer, facts), send: (e) => e.reviewRequirements(reviewer) },
  { name: 'judge', call: judgeCall(judge, facts), send: (e) => e.judgeHelpfulness!(judge) },
  { name: 'diagnostician (one label)', call: diagnosticianCall(diagnostician(1), facts), send: (e) => e.writeDiagnosisScript(diagnostician(1)), alsoWrites: reportSchema },
  { name: 'diagnostician (two labels)', call: diagnosticianCall(diagnostician(2), facts), send: (e) => e.writeDiagnosisScript(diagnostician(2)), alsoWrites: reportSchema },
  { name: 'synthesizer', call: synthesizerCall(synthesizer, facts), send: (e) => e.synthesize(synthesizer), alsoWrites: manifestSchema },
  { name: 'member writer', call: writerCall(writer, facts), send: (e) => e.writeMember!(writer) },
  { name: 'orchestrator writer', call: orchestratorPromptCall(orchestrator, facts), send: (e) => e.writeOrchestratorPrompt(orchestrator) },
];

type Schema = { properties?: Record<string, Schema>; items?: Schema; enum?: unknown[]; const?: unknown; anyOf?: Schema[]; oneOf?: Schema[] };
/** Every property name and every enum or const value anywhere in a JSON Schema. */
function namesIn(schema: Schema | undefined, into = new Set<string>()): Set<string> {
  if (!schema || typeof schema !== 'object') return into;
  for (const [key, value] of Object.entries(schema.properties ?? {})) {
    into.add(key);
    namesIn(value, into);
  }
  for (const value of [...(schema.enum ?? []), ...(schema.const !== undefined ? [schema.const] : [])]) if (typeof value === 'string') into.add(value);
  namesIn(schema.items, into);
  for (const option of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) namesIn(option, into);
  return into;
}

// Names the prose quotes that are not the answer's: what the role reads (trace events and their
// fields, record fields, a member's "sees" values, template variables) rather than what it writes.
const READ_NOT_WRITTEN = new Set(['agent', 'orchestrator', 'context', 'request', 'type', 'status', 'label', 'ok', 'command', 'evidence', 'brokenBy', 'sees']);

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic((request) => {
    const tool = (request.body.tools as Array<{ name: string; input_schema: Record<string, unknown> }>)[0];
    return toolAnswer(tool?.name ?? '', schemaOnlyAnswer(tool?.input_schema ?? {}));
  });
});
afterAll(async () => {
  await server.close();
});

describe('every role says only what its answer can carry', () => {
  it('accepts, for every role, the first answer of an answerer that reads only the schema', async () => {
    const send = createMessagesClient({ apiKey: 'sk-test-key-0123456789', baseURL: server.url, maxRetries: 0, timeoutMs: 10_000 });
    const engine = createClaudeEngine(send, () => {}, facts);
    for (const role of roles) {
      const before = server.requests.length;
      await role.send(engine);
      expect(server.requests.length - before, `${role.name}: answered without a repair`).toBe(1);
    }
  });

  it('asks in its prose only for fields its schema has', () => {
    for (const role of roles) {
      const prose = [...role.call.system, role.call.user].join('\n');
      const schema = (messagesParams(role.call).tools as Array<{ input_schema: Schema }>)[0]?.input_schema;
      const known = namesIn(role.alsoWrites, namesIn(schema));
      // A quoted name in prose, not a key or a value of the JSON the request carries (after ":", "[", "{" or a bare ",", or before ":", or an XML attribute).
      const quoted = [...prose.matchAll(/(?<![:[{]\s?|[,=])"([a-zA-Z][a-zA-Z]*)"(?!\s*:)/g)].map((m) => m[1] as string);
      const missing = [...new Set(quoted)].filter((name) => !known.has(name) && !READ_NOT_WRITTEN.has(name));
      expect(missing, `${role.name}: quoted in the prose, absent from the schema`).toEqual([]);
    }
    // The orchestrator's writer is told what it writes, and where the proposal stands.
    const written = roles.find((r) => r.name === 'orchestrator writer')?.call;
    expect(written?.system.join('\n')).toMatch(/^You write the orchestrator's prompt/);
    expect(written?.user).toContain('Every conversation of the design split (8 cases) passed');
    expect(written?.user).toContain('only if it fixes at least 1 train case(s) the release fails');
  });
});
