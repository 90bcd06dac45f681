import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { initWorkspace, type InitProvider, type InitRuntime } from '../../app/init-workspace.ts';
import { presentation } from '../open-command.ts';
import type { Io } from '../io.ts';
import { workspaceDir } from '../../app/compose.ts';
import type { InitOptions } from './init.options.ts';

const runtimes: readonly InitRuntime[] = ['command', 'tool-loop'];
const providers: readonly InitProvider[] = ['anthropic', 'openai'];

/** `agentdevel init [--runtime command|tool-loop] [--provider anthropic|openai]`: a working workspace in an empty git repository. */
export async function initCommand(io: Io, options: InitOptions): Promise<number> {
  const runtime = (options.runtime ?? 'command') as InitRuntime;
  if (!runtimes.includes(runtime)) throw new AgentdevelError('USAGE', `--runtime: expected command or tool-loop, got "${options.runtime}"`);
  const provider = (options.provider ?? null) as InitProvider | null;
  if (provider !== null && !providers.includes(provider)) throw new AgentdevelError('USAGE', `--provider: expected anthropic or openai, got "${options.provider}"`);
  const dir = workspaceDir(io, options);
  const { output } = presentation(io, options);
  const result = await initWorkspace(dir, runtime, provider);
  if (output.json) {
    output.result({ dir, runtime, ...result });
    return 0;
  }
  output.line(`${result.createdRepository ? 'created a git repository and ' : ''}scaffolded a ${runtime} workspace in ${dir}:`);
  for (const file of result.files) output.line(`  ${file}`);
  const here = path.resolve(io.cwd) === dir ? '' : ` -C ${dir}`;
  const next = [
    { command: `npx agentdevel run${here}`, why: 'runs the train cases on the working tree' },
    { command: `git${here} add -A && git${here} commit -m "agentdevel workspace"`, why: 'the line starts at this commit' },
    { command: `npx agentdevel iterate${here}`, why: 'improves the agent, one release candidate at a time' },
  ];
  const width = Math.max(...next.map((n) => n.command.length));
  output.line('next:');
  for (const { command, why } of next) output.line(`  ${command.padEnd(width)}   # ${why}`);
  if (provider === 'openai') output.line('Every role runs on openai:gpt-5.1: export OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server) first.');
  if (provider === 'anthropic') output.line('Every role runs on Claude: export ANTHROPIC_API_KEY first.');
  if (runtime === 'command') output.line(`Replace blueprints/${result.blueprint}/agent.mjs with your agent (any language), and rubrics/arithmetic/ with your task.`);
  return 0;
}
