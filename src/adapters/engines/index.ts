import type { Config } from '../../config/schema.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import { MOCK_MODEL, providerOf, type ConfiguredModels } from '../../domain/models.ts';
import type { ModelPort, Role } from '../../domain/ports/model.ts';
import { createMockEngine } from './mock/index.ts';
import type { OpenAIEngineFactory } from './openai.ts';

export type EngineFactory = (role: Role, model: string) => ModelPort;

/**
 * The model port the pipeline uses: each role goes to the engine its configured model names
 * ("mock", a Claude model id, or "openai:MODEL"). One port, so every call can be metered and recorded in one place.
 */
export function createModelPort(models: Config['models'] | ConfiguredModels, engines: { claude: EngineFactory | null; openai?: OpenAIEngineFactory | null }): ModelPort {
  const mock = createMockEngine();
  const forRole = (role: Role): ModelPort => {
    const model = models[role];
    if (model === MOCK_MODEL) return mock;
    if (providerOf(model) === 'openai') {
      if (!engines.openai) throw new AgentdevelError('CONFIG_INVALID', `models.${role}: "${model}" needs the OpenAI engine`);
      return engines.openai(role, model, models.endpoints?.[role] ?? null);
    }
    if (!engines.claude) throw new AgentdevelError('CONFIG_INVALID', `models.${role}: "${model}" needs the Claude engine`);
    return engines.claude(role, model);
  };
  // The judge's and the writer's engines are made only when first asked (credit.helpfulness is
  // off by default; only `discover` asks the writer), so their default models need no key otherwise.
  let judge: ModelPort | null = null;
  let writer: ModelPort | null = null;
  const ports = { agent: forRole('agent'), critic: forRole('critic'), diagnostician: forRole('diagnostician'), synthesizer: forRole('synthesizer') };
  return {
    agentTurn: (request) => ports.agent.agentTurn(request),
    criticize: (request) => ports.critic.criticize(request),
    writeDiagnosisScript: (request) => ports.diagnostician.writeDiagnosisScript(request),
    synthesize: (request) => ports.synthesizer.synthesize(request),
    // The requirements review is a critic's job, on the critic's model: blind to the blueprint too.
    reviewRequirements: (request) => ports.critic.reviewRequirements(request),
    judgeHelpfulness: (request) => (judge ??= forRole('judge')).judgeHelpfulness(request),
    writeMember: (request) => (writer ??= forRole('writer')).writeMember(request),
    writeOrchestratorPrompt: (request) => (writer ??= forRole('writer')).writeOrchestratorPrompt(request),
  };
}
