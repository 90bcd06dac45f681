// Each role's call as data: the system blocks, the user message, the forced tool and its
// schema. The engine sends these; `agentdevel prompts` prints them. One builder for both, so
// what a reviewer reads is byte for byte what the model is sent.
import type {
  CallRole,
  CriticRequest,
  DiagnosisAnswer,
  DiagnosisScriptRequest,
  HelpfulnessRequest,
  HelpfulnessVerdict,
  MemberWriteRequest,
  OrchestratorPromptRequest,
  RequirementViolation,
  RequirementsReviewRequest,
  SynthesisRequest,
} from '../../../domain/ports/model.ts';
import { draftProblems, memberDraftSchema, orchestratorPromptSchema, type MemberDraft, type OrchestratorPrompt } from '../../../domain/member-writer.ts';
import { criticAnswerSchema } from '../../../domain/critic-answer.ts';
import { CONTEXT_VIEW, REQUEST_VIEW } from '../../../domain/blueprint-manifest.ts';
import type { CriticVerdict } from '../../../domain/record.ts';
import { releaseCandidateSchemaFor, type ReleaseCandidate } from '../../../domain/release-candidate.ts';
import type { RoleFacts } from '../../../domain/role-facts.ts';
import { z, type ZodType } from '../../../domain/zod.ts';
import type { MessageParams } from './messages-client.ts';
import { criticPrompt, diagnosticianPrompt, judgePrompt, proposesMerges, orchestratorPromptPrompt, requirementsPrompt, synthesizerPrompt, writerPrompt } from './prompts.ts';

export interface StructuredCall<T> {
  readonly role: CallRole;
  readonly model: string;
  readonly system: readonly string[];
  readonly user: string;
  readonly tool: { readonly name: string; readonly description: string; readonly schema: ZodType<T> };
  readonly maxTokens: number;
  /** Long answers (scripts, whole files) are streamed, so no proxy timeout cuts them off. */
  readonly stream: boolean;
}

export function criticCall(request: CriticRequest, facts: RoleFacts): StructuredCall<CriticVerdict> {
  return {
    role: 'critic',
    model: request.model,
    ...criticPrompt(request, facts),
    tool: { name: 'submit_verdict', description: 'Submit the verdict on this conversation.', schema: criticAnswerSchema(request.scorer, (request.requirements ?? []).map((r) => r.id)) },
    maxTokens: 1024,
    stream: false,
  };
}

/**
 * One of `values`, as JSON Schema says it (an enum). With no value to name, nothing is allowed:
 * the list that holds it then stays empty (maxItems 0).
 */
function oneOf(values: readonly string[]) {
  const [first, ...rest] = values;
  return first === undefined ? z.never() : z.enum([first, ...rest]);
}

/** The requirements layer: violations only, each naming a requirement and a case the request holds (enums). */
export function requirementsReviewCall(request: RequirementsReviewRequest, facts: RoleFacts): StructuredCall<{ violations: RequirementViolation[] }> {
  const ids = request.requirements.map((r) => r.id);
  const cases = request.cases.map((c) => c.caseId);
  const violation = z.object({ requirement: oneOf(ids), caseId: oneOf(cases), reason: z.string().min(1).max(300) });
  return {
    role: 'reviewer',
    model: request.model,
    ...requirementsPrompt(request, facts),
    tool: {
      name: 'report_violations',
      description: 'Report every requirement a conversation breaks (an empty list when none).',
      schema: z.object({ violations: ids.length === 0 || cases.length === 0 ? z.array(violation).max(0) : z.array(violation) }) as ZodType<{ violations: RequirementViolation[] }>,
    },
    maxTokens: 2048,
    stream: false,
  };
}

/**
 * The helpfulness judge: exactly one verdict for each call id it was given. The schema says all
 * it can (each id from the enum, as many verdicts as ids); that no id repeats is checked after
 * the answer, and the prompt says so ("one verdict each").
 */
export function judgeCall(request: HelpfulnessRequest, facts: RoleFacts): StructuredCall<{ verdicts: HelpfulnessVerdict[] }> {
  const ids = request.callIds;
  const schema = z
    .object({ verdicts: z.array(z.object({ callId: oneOf(ids), helpful: z.boolean(), reason: z.string().min(1).max(300) })).min(ids.length).max(ids.length) })
    .superRefine((value, context) => {
      for (const id of ids) {
        if (value.verdicts.filter((v) => v.callId === id).length !== 1) context.addIssue({ code: 'custom', path: ['verdicts'], message: `give exactly one verdict for the call "${id}"` });
      }
    });
  return {
    role: 'judge',
    model: request.model,
    ...judgePrompt(request, facts),
    tool: { name: 'submit_helpfulness', description: "Submit one verdict per call of the component: did it help?", schema: schema as ZodType<{ verdicts: HelpfulnessVerdict[] }> },
    maxTokens: 1024,
    stream: false,
  };
}

/** The member writer: one member, checked against the archive and the blueprint's tool files (a warm-up keeps its name). */
export function writerCall(request: MemberWriteRequest, facts: RoleFacts): StructuredCall<MemberDraft> {
  const rules = { archive: request.archive.map((m) => m.name), toolFiles: request.tools.map((t) => t.file), keepName: request.warmup?.draft.name ?? null };
  // What a member may see and call are closed lists the request holds: the schema says them as enums, as the prompt does.
  const listed = memberDraftSchema.extend({
    sees: z.array(oneOf([CONTEXT_VIEW, REQUEST_VIEW, ...rules.archive])).min(1).describe(memberDraftSchema.shape.sees.description ?? ''),
    tools: (rules.toolFiles.length > 0 ? z.array(oneOf(rules.toolFiles)) : z.array(z.string().min(1)).max(0)).describe(memberDraftSchema.shape.tools.description ?? ''),
  });
  const schema = listed.superRefine((draft, context) => {
    for (const problem of draftProblems(draft, rules)) context.addIssue({ code: 'custom', path: [problem.slice(0, problem.indexOf(':'))], message: problem.slice(problem.indexOf(':') + 2) });
  });
  return {
    role: 'writer',
    model: request.model,
    ...writerPrompt(request, facts),
    tool: { name: 'submit_member', description: 'Submit the crew member.', schema },
    maxTokens: 8000,
    stream: true,
  };
}

export function orchestratorPromptCall(request: OrchestratorPromptRequest, facts: RoleFacts): StructuredCall<OrchestratorPrompt> {
  return {
    role: 'writer',
    model: request.model,
    ...orchestratorPromptPrompt(request, facts),
    tool: { name: 'submit_orchestrator_prompt', description: "Submit the orchestrator's prompt for the team.", schema: orchestratorPromptSchema },
    maxTokens: 8000,
    stream: true,
  };
}

/**
 * The diagnostician's answer: the script and, where the taxonomy has labels to merge, the merges
 * of synonyms it proposes. The labels are an enum of the taxonomy, the evidence an enum of the
 * run's failing cases (when they are few enough to list); that the evidence shows at least two
 * of the labels is checked after the answer (stages/diagnose), and the prompt says so.
 */
export function diagnosisAnswerSchema(request: Pick<DiagnosisScriptRequest, 'taxonomy' | 'failingCases'>): ZodType<DiagnosisAnswer> {
  const labels = request.taxonomy.map((s) => s.label);
  if (!proposesMerges(request)) return z.object({ script: z.string() });
  const cases = request.failingCases ?? null;
  const merge = z.object({
    labels: z.array(oneOf(labels)).min(2).describe('the synonyms: labels of the taxonomy that name one fault'),
    into: oneOf(labels).describe('the label they all become: one of "labels"'),
    reason: z.string().min(1).describe('what the cases share that makes these one fault'),
    evidence: z.array(cases && cases.length > 0 ? oneOf(cases) : z.string().min(1)).min(1).describe('ids of failing cases of at least two of the labels that show one fault'),
  });
  return z.object({ script: z.string(), labelMerges: z.array(merge).optional() }) as ZodType<DiagnosisAnswer>;
}

export function diagnosticianCall(request: DiagnosisScriptRequest, facts: RoleFacts): StructuredCall<DiagnosisAnswer> {
  return {
    role: 'diagnostician',
    model: request.model,
    ...diagnosticianPrompt(request, facts),
    tool: {
      name: 'submit_script',
      description: proposesMerges(request) ? 'Submit the complete diagnosis script (and any merges of synonym labels it found).' : 'Submit the complete diagnosis script.',
      schema: diagnosisAnswerSchema(request),
    },
    maxTokens: 16_000,
    stream: true,
  };
}

export function synthesizerCall(request: SynthesisRequest, facts: RoleFacts): StructuredCall<ReleaseCandidate> {
  return {
    role: 'synthesizer',
    model: request.model,
    ...synthesizerPrompt(request, facts),
    tool: {
      name: 'submit_release_candidate',
      description: 'Submit the one release candidate.',
      schema: releaseCandidateSchemaFor(request.taxonomy.map((s) => s.label), request.blueprint.runtime, request.blueprintRoot),
    },
    maxTokens: 32_000,
    stream: true,
  };
}

const CACHE = { type: 'ephemeral' } as const;

/** The Messages API body of a structured call's first turn (the stream flag is the client's). */
export function messagesParams<T>(call: StructuredCall<T>): MessageParams {
  const inputSchema = z.toJSONSchema(call.tool.schema, { io: 'input' }) as Record<string, unknown>;
  delete inputSchema.$schema;
  return {
    model: call.model,
    max_tokens: call.maxTokens,
    system: call.system.map((text) => ({ type: 'text', text, cache_control: CACHE })),
    tools: [{ name: call.tool.name, description: call.tool.description, input_schema: inputSchema, cache_control: CACHE }],
    tool_choice: { type: 'tool', name: call.tool.name },
    messages: [{ role: 'user', content: call.user }],
  };
}
