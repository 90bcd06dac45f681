// Answers Messages API requests the way the mock engine would, so that the real Claude adapter,
// the SDK and HTTP are exercised end to end with realistic behaviour: the agent role acts like
// the simulated orders agent, the critic like the heuristic critic, the diagnostician returns the
// built-in script, the synthesizer proposes the simulated repairs.
import { blueprintBrief } from '../../src/adapters/blueprint/brief.ts';
import { readFileSync } from 'node:fs';
import type { AgentTurnRequest, ConversationMessage, RcHistoryEntry, SymptomEntry } from '../../src/domain/ports/model.ts';
import type { DiagnosisReport } from '../../src/domain/diagnosis.ts';
import { simulatedAgentTurn } from '../../src/adapters/engines/mock/agent.ts';
import { simulatedSynthesis } from '../../src/adapters/engines/mock/synthesizer.ts';
import { simulatedHelpfulness } from '../../src/adapters/engines/mock/helpfulness.ts';
import { simulatedMemberDraft, simulatedOrchestratorPrompt } from '../../src/adapters/engines/mock/member-writer.ts';
import type { MemberDraft } from '../../src/domain/member-writer.ts';
import { heuristicCritic, heuristicRequirementsReview } from '../../src/adapters/engines/mock/heuristic-critic.ts';
import { rubricRequirements } from '../../src/domain/requirements.ts';
import type { FakeReply, FakeRequest, Responder } from './fake-anthropic.ts';
import { toolAnswer } from './fake-anthropic.ts';
import { repoRoot } from './workspace.ts';

type ApiBlock = Record<string, unknown>;

function systemText(body: Record<string, unknown>): string {
  const system = body.system;
  if (typeof system === 'string') return system;
  return ((system as ApiBlock[] | undefined) ?? []).map((b) => String(b.text ?? '')).join('\n');
}

export function userText(body: Record<string, unknown>): string {
  const first = (body.messages as Array<{ content: unknown }>)[0]?.content;
  return typeof first === 'string' ? first : ((first as ApiBlock[]) ?? []).map((b) => String(b.text ?? '')).join('\n');
}

export function between(text: string, open: string, close: string): string {
  const start = text.indexOf(open);
  const end = text.indexOf(close, start + open.length);
  return start < 0 || end < 0 ? '' : text.slice(start + open.length, end).trim();
}

function toConversation(messages: Array<{ role: string; content: ApiBlock[] | string }>): ConversationMessage[] {
  return messages.map((m) => {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (m.role === 'assistant') {
      return {
        role: 'assistant',
        content: content.map((b) => (b.type === 'tool_use' ? { type: 'tool_use', id: String(b.id), name: String(b.name), input: b.input } : { type: 'text', text: String(b.text) })),
      } as ConversationMessage;
    }
    return {
      role: 'user',
      content: content.map((b) =>
        b.type === 'tool_result' ? { type: 'tool_result', toolUseId: String(b.tool_use_id), content: String(b.content), isError: b.is_error === true } : { type: 'text', text: String(b.text) },
      ),
    } as ConversationMessage;
  });
}

function agent(request: FakeRequest): FakeReply {
  const body = request.body;
  const turnRequest: AgentTurnRequest = {
    model: String(body.model),
    system: systemText(body),
    tools: ((body.tools as ApiBlock[]) ?? []).map((t) => ({ name: String(t.name), description: String(t.description), inputSchema: t.input_schema as Record<string, unknown> })),
    messages: toConversation(body.messages as Array<{ role: string; content: ApiBlock[] }>),
    maxTokens: Number(body.max_tokens),
    seed: '0',
  };
  const turn = simulatedAgentTurn(turnRequest);
  return {
    kind: 'message',
    message: {
      content: turn.content.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'tool_use', id: b.id, name: b.name, input: b.input })),
      stop_reason: turn.stopReason,
      usage: { input_tokens: 40, output_tokens: turn.usage.outputTokens, cache_read_input_tokens: turn.usage.inputTokens },
    },
  };
}

/**
 * The requirements a request lists ("- id: text" lines), with the symptoms a model reading them
 * would look for: those the rubric's requirements block gives, else a skipped or ignored
 * confirmation (the example's own case requirements are about an explicit yes).
 */
export function listedRequirements(text: string, rubric: string): Array<{ id: string; text: string; symptoms: string[] }> {
  const block = between(text, '<requirements>', '</requirements>');
  const declared = rubricRequirements(rubric);
  return [...block.matchAll(/^- ([A-Za-z][A-Za-z0-9_.-]*): (.*)$/gm)].map((m) => ({
    id: m[1] as string,
    text: m[2] as string,
    symptoms: declared.find((r) => r.id === m[1])?.symptoms ?? ['missing_required_step', 'acted_against_user'],
  }));
}

function critic(request: FakeRequest): FakeReply {
  const text = userText(request.body);
  const rubric = between(systemText(request.body), '<rubric>', '</rubric>');
  if ((request.body.tools as Array<{ name: string }> | undefined)?.some((t) => t.name === 'report_violations')) {
    const cases = [...text.matchAll(/<trace case="([^"]+)">\n([\s\S]*?)\n<\/trace>/g)].map((m) => ({ caseId: m[1] as string, trace: JSON.parse(m[2] as string) }));
    return toolAnswer('report_violations', { violations: heuristicRequirementsReview(rubric, listedRequirements(text, rubric), cases) });
  }
  const scorerText = between(text, '<scorer_result>', '</scorer_result>');
  const scorer = scorerText.startsWith('{') ? JSON.parse(scorerText) : null;
  const verdict = heuristicCritic(rubric, JSON.parse(between(text, '<trace>', '</trace>')), scorer, listedRequirements(text, rubric));
  return toolAnswer('submit_verdict', verdict);
}

// The script a diagnostician "writes": the built-in one, adapted (as a model would adapt it).
const builtinScript = `// Diagnosis script written for this iteration.\n${readFileSync(`${repoRoot}src/domain/builtin-diagnosis.mjs`, 'utf8')}`;

/** The earlier RCs as the synthesizer's request lists them (a JSON array, or a "none" line). */
export function earlierCandidates(text: string): RcHistoryEntry[] {
  const listed = between(text, '<earlier_release_candidates>', '</earlier_release_candidates>');
  if (!listed.startsWith('[')) return [];
  return (JSON.parse(listed) as Array<{ iteration: number; decision: RcHistoryEntry['decision']; targets: string[]; rationale: string; gate: string[] }>).map((h) => ({
    iteration: h.iteration,
    decision: h.decision,
    targets: h.targets,
    rationale: h.rationale,
    reasons: h.gate,
    fingerprint: '',
    fixed: [],
    broken: [],
    edited: [],
    scope: [],
  }));
}

/** The labels of the <taxonomy> block of a request. */
export function taxonomyOf(text: string): SymptomEntry[] {
  return [...between(text, '<taxonomy>', '</taxonomy>').matchAll(/^- ([a-z0-9_]+): (.*)$/gm)].map((m) => ({ label: m[1] as string, description: m[2] as string }));
}

function synthesizer(request: FakeRequest): FakeReply {
  const text = userText(request.body);
  const files = [...text.matchAll(/<file path="([^"]+)">\n([\s\S]*?)\n<\/file>/g)].map((m) => ({ path: m[1] as string, content: m[2] as string }));
  const name = /<blueprint name="([^"]+)">/.exec(text)?.[1] ?? '';
  const diagnosis = JSON.parse(between(text, '<diagnosis>', '</diagnosis>')) as DiagnosisReport;
  const candidate = simulatedSynthesis({
    model: 'x',
    blueprintName: name,
    blueprintRoot: `blueprints/${name}`,
    blueprint: blueprintBrief('tool-loop'),
  evidence: { budgetTokens: 0, usedTokens: 0, symptoms: [] },
    files,
    diagnosis,
    history: earlierCandidates(text),
    taxonomy: taxonomyOf(text),
    task: { rubric: '', environmentApi: null },
    repair: null,
  });
  return toolAnswer('submit_release_candidate', candidate, { input_tokens: 4000, output_tokens: 2000 });
}

/** The mock engine's behaviour, served over the Messages API. */
/** The helpfulness judge as the mock engine judges: from the <trace> and the listed call ids. */
function judge(request: FakeRequest): FakeReply {
  const text = userText(request.body);
  const component = /<component kind="(member|tool)" name="([^"]+)">\n([\s\S]*?)\n<\/component>/.exec(text);
  const callIds = (/one verdict each: (.*)$/m.exec(text)?.[1] ?? '').split(', ').filter(Boolean);
  const verdicts = simulatedHelpfulness({
    model: 'x',
    component: { kind: (component?.[1] ?? 'member') as 'member' | 'tool', name: component?.[2] ?? '', description: component?.[3] ?? '' },
    trace: JSON.parse(between(text, '<trace>', '</trace>')),
    callIds,
  });
  return toolAnswer('submit_helpfulness', { verdicts });
}

/** The text between a tag that opens with `<name` (attributes and all) and its closing tag. */
function block(text: string, name: string): string {
  const open = new RegExp(`<${name}(?: [^>]*)?>\n`).exec(text);
  if (!open) return '';
  const end = text.indexOf(`</${name}>`, open.index + open[0].length);
  return end < 0 ? '' : text.slice(open.index + open[0].length, end).trim();
}

/** The member writer as the simulated one writes: its request read back from the prompt's blocks. */
function writer(request: FakeRequest): FakeReply {
  const text = userText(request.body);
  if ((request.body.tools as Array<{ name: string }> | undefined)?.some((t) => t.name === 'submit_orchestrator_prompt')) {
    const current = /<current_prompt path="([^"]+)">\n([\s\S]*?)\n<\/current_prompt>/.exec(text);
    const written = simulatedOrchestratorPrompt({
      model: 'x',
      blueprintName: '',
      blueprintRoot: '',
      current: { path: current?.[1] ?? '', content: current?.[2] ?? '' },
      team: JSON.parse(block(text, 'team')),
      task: { rubric: '', environmentApi: null },
    });
    return toolAnswer('submit_orchestrator_prompt', written, { input_tokens: 3000, output_tokens: 800 });
  }
  const warm = /<warm_up attempt="(\d+)">/.exec(text);
  const draft = simulatedMemberDraft({
    model: 'x',
    blueprintName: '',
    blueprintRoot: '',
    files: [],
    tools: [...block(text, 'tool_wrappers').matchAll(/^- ([^:]+): ([^:]+): (.*)$/gm)].map((m) => ({ file: m[1] as string, name: m[2] as string, description: m[3] as string })),
    archive: JSON.parse(block(text, 'archive')),
    task: { rubric: '', environmentApi: null },
    symptoms: [...block(text, 'design_split_symptoms').matchAll(/^- ([a-z0-9_]+): (\d+)$/gm)].map((m) => ({ label: m[1] as string, caseTrials: Number(m[2]) })),
    warmup: warm
      ? {
          attempt: Number(warm[1]),
          draft: JSON.parse(block(text, 'draft')) as MemberDraft,
          trajectories: [...text.matchAll(/<trajectory case="([^"]+)" passed="(true|false)">\n([\s\S]*?)\n<\/trajectory>/g)].map((m) => ({ caseId: m[1] as string, pass: m[2] === 'true', trace: JSON.parse(m[3] as string) })),
        }
      : null,
  });
  return toolAnswer('submit_member', draft, { input_tokens: 5000, output_tokens: 600 });
}

export const mockBrain: Responder = (request) => {
  switch (request.role) {
    case 'agent':
      return agent(request);
    case 'critic':
    case 'reviewer':
      return critic(request);
    case 'diagnostician':
      return toolAnswer('submit_script', { script: builtinScript }, { input_tokens: 3000, output_tokens: 1500 });
    case 'synthesizer':
      return synthesizer(request);
    case 'judge':
      return judge(request);
    case 'writer':
      return writer(request);
    default:
      return { kind: 'error', status: 400, type: `no role header on request ${request.index}` };
  }
};

/** The smallest outputs each schema allows: an empty turn, a minimal verdict, an empty script, empty edits. */
export const minimalBrain: Responder = (request) => {
  switch (request.role) {
    case 'agent':
      return { kind: 'message', message: { content: [], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 0 } } };
    case 'critic': {
      // A verdict on each requirement the request lists is part of the smallest valid answer.
      const text = userText(request.body);
      const requirements = listedRequirements(text, '').map((r) => ({ id: r.id, pass: false, reason: '' }));
      return toolAnswer('submit_verdict', { pass: false, label: 'aa', description: '', ...(requirements.length > 0 ? { requirements } : {}) });
    }
    case 'reviewer':
      return toolAnswer('report_violations', { violations: [] });
    case 'diagnostician':
      return toolAnswer('submit_script', { script: '' });
    case 'synthesizer':
      return toolAnswer('submit_release_candidate', { edits: [], intent: { targets: ['x'], rationale: 'x' } });
    default:
      return { kind: 'error', status: 400 };
  }
};

/**
 * Every fifth request fails with 429 (with retry-after) or 529, alternately: 20% of requests.
 * A request already retried twice is let through, so that concurrent requests cannot gang up on
 * one and the outcome does not depend on scheduling (agentdevel retries up to 4 times).
 */
export function withFaults(inner: Responder, counts = { faults: 0 }): Responder {
  let count = 0;
  return (request) => {
    count += 1;
    if (count % 5 === 0 && Number(request.headers['x-stainless-retry-count'] ?? 0) < 2) {
      counts.faults += 1;
      return count % 10 === 0
        ? { kind: 'error', status: 529, headers: { 'retry-after': '0.01' } }
        : { kind: 'error', status: 429, headers: { 'retry-after': '0.02' } };
    }
    return inner(request);
  };
}

/**
 * The scale workspace's agent (bench/lib/scale-workspace.ts) on Claude: it looks the case up
 * with its one tool, then answers with a line its regex scorer passes; two requests a case, and
 * the critic (called only on failures) is never needed.
 */
export const lookupThenAnswer: Responder = (request) => {
  if (request.role !== 'agent') return minimalBrain(request);
  const messages = request.body.messages as Array<{ content: unknown }>;
  const looked = messages.some((m) => Array.isArray(m.content) && (m.content as ApiBlock[]).some((b) => b.type === 'tool_result'));
  if (!looked) return { kind: 'message', message: { content: [{ type: 'tool_use', id: 'toolu_lookup', name: 'lookup', input: { q: userText(request.body) } }], stop_reason: 'tool_use', usage: { input_tokens: 40, output_tokens: 12 } } };
  return { kind: 'message', message: { content: [{ type: 'text', text: 'Found it; glad to help.' }], stop_reason: 'end_turn', usage: { input_tokens: 60, output_tokens: 8 } } };
};
