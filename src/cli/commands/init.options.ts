// `agentdevel init`: its command line (the command itself is init.ts). Light: `--help` reads it without loading the command.
import { command, option, type OptionsOf } from '../declaration.ts';
import type { CommonOptions } from '../io.ts';

export const initCommandLine = command({
  name: 'init',
  description: 'scaffold a working workspace (config, blueprint, task, cases) in an empty git repository',
  options: [
    option('--runtime <runtime>', 'command (your own program, in any language) or tool-loop (the bundled tool-use example)', 'command'),
    option('--provider <provider>', 'every model role on anthropic (Claude) or openai (any OpenAI-compatible server); default: the offline mock'),
  ],
});

export type InitOptions = CommonOptions & OptionsOf<typeof initCommandLine>;
