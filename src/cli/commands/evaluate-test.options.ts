// `agentdevel evaluate-test`: its command line (the command itself is evaluate-test.ts). Light: `--help` reads it without loading the command.
import { command } from '../declaration.ts';
import { queue } from '../shared-options.ts';

export const evaluateTestCommandLine = command({
  name: 'evaluate-test',
  description: 'the single held-out test evaluation of the current release',
  options: [queue],
});
