// `agentdevel prompts`: its command line (the command itself is prompts.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const promptsCommandLine = command({
  name: 'prompts',
  description: 'print what a model role is sent for the workspace as it stands (no model call, nothing recorded)',
  options: [
    option('--role <role>', 'critic, reviewer, diagnostician or synthesizer'),
    option('--case <id>', 'the train case whose trace the critic judges (default: the first failing one of the newest run)'),
  ],
});

export type PromptsOptions = CommonOptions & OptionsOf<typeof promptsCommandLine>;
