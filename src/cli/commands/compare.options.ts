// `agentdevel compare`: its command line (the command itself is compare.ts). Light: `--help` reads it without loading the command.
import { argument, command } from '../declaration.ts';

export const compareCommandLine = command({
  name: 'compare',
  description: 'compare two recorded runs (by name or id) with the gate; exit 0 accepts, 1 rejects',
  arguments: [argument('<baseline>', 'run name or id'), argument('<candidate>', 'run name or id')],
  options: [],
});
