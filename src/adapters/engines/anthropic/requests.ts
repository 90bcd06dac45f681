// Each role's call as data: the system blocks, the user message, the forced tool and its
// schema. The engine sends these; `agentdevel prompts` prints them. One builder for both, so
// what a reviewer reads is byte for byte what the model is sent.
import type {
  CallRole,
  CriticRequest,
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
import type { CriticVerdict } from '../../../domain/record.ts';
import { releaseCandidateSchemaFor, type ReleaseCandidate } from '../../../domain/release-candidate.ts';
import type { RoleFacts } from '../../../domain/role-facts.ts';
import { z, type ZodType } from '../../../domain/zod.ts';
import type { MessageParams } from './messages-client.ts';
import { criticPrompt, diagnosticianPrompt, judgePrompt, orchestratorPromptPrompt, requirementsPrompt, synthesizerPrompt, writerPrompt } from './prompts.ts';

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

/** The requirements layer: violations only, each naming a requirement and a case the request holds. */
export function requirementsReviewCall(request: RequirementsReviewRequest, facts: RoleFacts): StructuredCall<{ violations: RequirementViolation[] }> {
  const ids = request.requirements.map((r) => r.id);
  const cases = request.cases.map((c) => c.caseId);
  const oneOf = (values: readonly string[], what: string) =>
    z.string().refine((v) => values.includes(v), { message: `expected one of the ${what}: ${values.join(', ')}` });
  return {
    role: 'reviewer',
    model: request.model,
    ...requirementsPrompt(request, facts),
    tool: {
      name: 'report_violations',
      description: 'Report every requirement a conversation breaks (an empty list when none).',
      schema: z.object({ violations: z.array(z.object({ requirement: oneOf(ids, 'requirement ids'), caseId: oneOf(cases, 'case ids'), reason: z.string().min(1).max(300) })) }),
    },
    maxTokens: 2048,
    stream: false,
  };
}

/** The helpfulness judge: exactly one verdict for each call id it was given. */
export function judgeCall(request: HelpfulnessRequest, facts: RoleFacts): StructuredCall<{ verdicts: HelpfulnessVerdict[] }> {
  const ids = request.callIds;
  const schema = z
    .object({ verdicts: z.array(z.object({ callId: z.string(), helpful: z.boolean(), reason: z.string().min(1).max(300) })) })
    .superRefine((value, context) => {
      for (const id of ids) {
        if (value.verdicts.filter((v) => v.callId === id).length !== 1) context.addIssue({ code: 'custom', path: ['verdicts'], message: `give exactly one verdict for the call "${id}"` });
      }
      const stray = value.verdicts.find((v) => !ids.includes(v.callId));
      if (stray) context.addIssue({ code: 'custom', path: ['verdicts'], message: `"${stray.callId}" is not one of the calls: ${ids.join(', ')}` });
    });
  return {
    role: 'judge',
    model: request.model,
    ...judgePrompt(request, facts),
    tool: { name: 'submit_helpfulness', description: "Submit one verdict per call of the component: did it help?", schema },
    maxTokens: 1024,
    stream: false,
  };
}

/** The member writer: one member, checked against the archive and the blueprint's tool files (a warm-up keeps its name). */
export function writerCall(request: MemberWriteRequest, facts: RoleFacts): StructuredCall<MemberDraft> {
  const rules = { archive: request.archive.map((m) => m.name), toolFiles: request.tools.map((t) => t.file), keepName: request.warmup?.draft.name ?? null };
  const schema = memberDraftSchema.superRefine((draft, context) => {
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

export function diagnosticianCall(request: DiagnosisScriptRequest, facts: RoleFacts): StructuredCall<{ script: string }> {
  return {
    role: 'diagnostician',
    model: request.model,
    ...diagnosticianPrompt(request, facts),
    tool: { name: 'submit_script', description: 'Submit the complete diagnosis script.', schema: z.object({ script: z.string() }) },
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
      schema: releaseCandidateSchemaFor(request.taxonomy.map((s) => s.label)),
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
