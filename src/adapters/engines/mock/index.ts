// The mock engine: a deterministic simulation of every model role for the bundled example,
// so the whole pipeline runs offline. It is not a language model, and its results say so.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ModelPort } from '../../../domain/ports/model.ts';
import { heuristicCritic, heuristicRequirementsReview } from './heuristic-critic.ts';
import { simulatedAgentTurn } from './agent.ts';
import { simulatedHelpfulness } from './helpfulness.ts';
import { simulatedMemberDraft, simulatedOrchestratorPrompt } from './member-writer.ts';
import { simulatedSynthesis } from './synthesizer.ts';
import { mockUsage } from './usage.ts';
import { blueprintAwareExcuses } from './blueprint-aware-critic.ts';

const builtinScript = fileURLToPath(new URL('../../../domain/builtin-diagnosis.mjs', import.meta.url));

export function createMockEngine(): ModelPort {
  return {
    agentTurn: async (request) => simulatedAgentTurn(request),
    criticize: async (request) => ({
      value: heuristicCritic(request.rubric, request.trace, request.scorer, request.requirements ?? [], blueprintAwareExcuses(request.rubric)),
      usage: mockUsage(request.rubric, JSON.stringify(request.trace), ''),
    }),
    // The simulated diagnostician keeps the previous iteration's script when there is one
    // (the paper's soft reference) and otherwise writes the built-in script. It proposes no
    // label merges: the heuristic critic it stands beside names each fault with one label, so
    // the example has no synonyms to merge (a scripted model on the fake API tests merges).
    writeDiagnosisScript: async (request) => {
      const script = request.previousScript ?? (await readFile(builtinScript, 'utf8'));
      return { value: { script }, usage: mockUsage(request.recordSchema, script) };
    },
    // A simulation of the requirements review: the heuristic critic's trace lint against each
    // requirement's listed symptoms. It is not a language model reading the requirement.
    reviewRequirements: async (request) => ({
      value: { violations: heuristicRequirementsReview(request.rubric, request.requirements, request.cases) },
      usage: mockUsage(request.rubric, JSON.stringify(request.cases), ''),
    }),
    // A simulation of the helpfulness judge: a call helped when what it returned is used later
    // (see helpfulness.ts). It is not a language model reading the trajectory.
    judgeHelpfulness: async (request) => {
      const verdicts = simulatedHelpfulness(request);
      return { value: { verdicts }, usage: mockUsage(JSON.stringify(request.trace), JSON.stringify(verdicts)) };
    },
    // A simulation of the member writer: a catalogue of members for the orders example, and a
    // fixed template for a team's orchestrator prompt (see member-writer.ts).
    writeMember: async (request) => {
      const draft = simulatedMemberDraft(request);
      return { value: draft, usage: mockUsage(JSON.stringify(request.archive), JSON.stringify(draft)) };
    },
    writeOrchestratorPrompt: async (request) => {
      const written = simulatedOrchestratorPrompt(request);
      return { value: written, usage: mockUsage(request.current.content, written.prompt) };
    },
    synthesize: async (request) => {
      const candidate = simulatedSynthesis(request);
      return { value: candidate, usage: mockUsage(JSON.stringify(request.diagnosis), JSON.stringify(candidate)) };
    },
  };
}
