import { AgentdevelError } from '../../domain/errors.ts';
import { MOCK_MODEL } from '../../domain/models.ts';
import { promptRoles, type PromptRole } from '../../pipeline/loop/role-requests.ts';
import { rolePrompt } from '../../app/role-prompt.ts';
import { openCommand } from '../open-command.ts';
import type { Io } from '../io.ts';
import type { PromptsOptions } from './prompts.options.ts';

function parseRole(value: string | undefined): PromptRole {
  const role = promptRoles.find((r) => r === value);
  if (!role) throw new AgentdevelError('USAGE', `--role: expected one of ${promptRoles.join(', ')}, got ${value === undefined ? 'nothing' : `"${value}"`}`);
  return role;
}

/**
 * Prints what a model role is sent for the workspace as it stands: the same builder the Claude
 * engine uses, fed from recorded runs and git. No model is called and nothing is recorded.
 */
export async function promptsCommand(io: Io, options: PromptsOptions): Promise<number> {
  const role = parseRole(options.role);
  if (options.case !== undefined && role !== 'critic') throw new AgentdevelError('USAGE', '--case: only the critic judges one case; drop --case or use --role critic');
  const command = await openCommand(io, options, null);
  try {
    const { call, params, provider, sources } = await rolePrompt(command.workspace, role, options.case ?? null, io.clock);
    for (const source of sources) command.reporter.emit({ type: 'stage', stage: 'prompts', message: source });
    if (call.model === MOCK_MODEL) {
      command.reporter.emit({ type: 'warning', message: `models.${role === 'reviewer' ? 'critic' : role} is "mock": the mock engine reads no prompt; this is what a Claude model would be sent` });
    }
    if (command.output.json) {
      command.output.result({ role, provider, stream: call.stream, headers: { 'x-agentdevel-role': role }, body: params });
      return 0;
    }
    const out = command.output;
    out.line(`# ${role} request${provider === 'openai' ? ' (Chat Completions)' : ''}: model ${call.model}, ${call.stream ? 'streamed (server-sent events)' : 'not streamed'}, header x-agentdevel-role: ${role}`);
    call.system.forEach((text, index) => {
      out.line('');
      out.line(provider === 'openai' ? `## system message, part ${index + 1} of ${call.system.length}` : `## system block ${index + 1} of ${call.system.length} (cache_control: ephemeral)`);
      out.line(text);
    });
    out.line('');
    out.line(`## tool ${call.tool.name} (forced): ${call.tool.description}`);
    const tool = (params.tools as Array<{ input_schema?: unknown; function?: { parameters: unknown; strict?: boolean } }>)[0];
    if (tool?.function?.strict) out.line('(strict: the server holds the answer to this schema)');
    out.line(JSON.stringify(tool?.input_schema ?? tool?.function?.parameters, null, 2));
    out.line('');
    out.line('## user message');
    out.line(call.user);
    return 0;
  } finally {
    await command.close();
  }
}
