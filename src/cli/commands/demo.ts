import path from 'node:path';
import { AgentdevelError } from '../../domain/errors.ts';
import { EXAMPLES, scaffoldExample, type ExampleName } from '../../app/example.ts';
import { iterate } from '../../pipeline/loop/iterate.ts';
import { openCommand, presentation } from '../open-command.ts';
import type { Io } from '../io.ts';
import { evaluateTestCommand } from './evaluate-test.ts';
import { parseMaxIterations, printIterations } from './iterate.ts';
import type { DemoOptions } from './demo.options.ts';

function exampleName(written: string | undefined): ExampleName {
  if (written === undefined) return 'orders';
  if (written in EXAMPLES) return written as ExampleName;
  throw new AgentdevelError('USAGE', `--example: "${written}" is not a bundled example (${Object.keys(EXAMPLES).join(', ')})`);
}

export async function demoCommand(io: Io, options: DemoOptions): Promise<number> {
  if (!options.dir) throw new AgentdevelError('USAGE', 'demo needs --dir DIR (a new or empty folder)');
  const maxIterations = parseMaxIterations(options.maxIterations);
  const example = exampleName(options.example);
  const dir = path.resolve(io.cwd, options.dir);
  const { reporter } = presentation(io, options);
  reporter.emit({ type: 'stage', stage: 'demo', message: `creating the example workspace in ${dir}` });
  await scaffoldExample(dir, example);

  const scoped = { ...options, C: dir };
  const command = await openCommand(io, scoped, 'demo');
  let stopReason: string;
  try {
    const outcome = await iterate(command.pipelineContext, { maxIterations });
    stopReason = outcome.stopReason;
    if (command.output.json) command.output.result({ dir, ...outcome });
    else printIterations(command, outcome);
  } finally {
    await command.close();
  }
  reporter.emit({ type: 'stage', stage: 'demo', message: 'evaluating the final release once on the held-out test split' });
  await evaluateTestCommand(io, scoped);
  if (!options.json) {
    io.stdout.write(`\nThe example workspace is in ${dir}: try \`npx agentdevel log -C ${dir}\` and \`git -C ${dir} tag -n\`.\n`);
    io.stdout.write(`stop reason: ${stopReason}\n`);
  }
  return 0;
}
