// `agentdevel prompts`: what a model role would be sent for the workspace as it stands. Composes
// the pipeline's request for the role (fed from recorded runs and git) with the Claude engine's
// own builder of the Messages API call (or the openai engine's of the Chat Completions call), and today's facts as the engine would give them.
import type { Clock } from '../domain/ports/clock.ts';
import type { RoleFacts } from '../domain/role-facts.ts';
import { criticCall, diagnosticianCall, messagesParams, requirementsReviewCall, synthesizerCall, type StructuredCall } from '../adapters/engines/anthropic/requests.ts';
import { chatParams } from '../adapters/engines/openai/requests.ts';
import { currentRoleFacts } from '../adapters/engines/runtime-facts.ts';
import { providerOf, providerModel } from '../domain/models.ts';
import { currentRoleRequest, type PromptRole, type RoleRequest } from '../pipeline/loop/role-requests.ts';
import type { Workspace } from '../pipeline/workspace/workspace.ts';

function callOf(built: RoleRequest, facts: RoleFacts): StructuredCall<unknown> {
  switch (built.role) {
    case 'critic':
      return criticCall(built.request, facts);
    case 'reviewer':
      return requirementsReviewCall(built.request, facts);
    case 'diagnostician':
      return diagnosticianCall(built.request, facts);
    case 'synthesizer':
      return synthesizerCall(built.request, facts);
  }
}

/** The role's call (its model, system blocks, forced tool and user message), the request body the engine would send, and where its inputs came from. No model is called. */
export async function rolePrompt(workspace: Workspace, role: PromptRole, caseId: string | null, clock: Clock) {
  const preview = await currentRoleRequest(workspace, role, caseId);
  const call = callOf(preview.built, currentRoleFacts(clock));
  // Each provider's own rendering of the same call: a Messages body, or a Chat Completions one.
  const openai = providerOf(call.model) === 'openai';
  const params: Record<string, unknown> = openai ? { ...chatParams(call), model: providerModel(call.model) } : messagesParams(call);
  return { call, params, provider: openai ? ('openai' as const) : ('anthropic' as const), sources: preview.sources };
}
