import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentdevelError } from '../../domain/errors.ts';
import { GitRepo, initRepository } from '../../git/git.ts';
import { iterate } from '../../pipeline/iterate.ts';
import { openCommand, presentation, type CommonOptions, type Io } from '../context.ts';
import { evaluateTestCommand } from './evaluate-test.ts';
import { parseMaxIterations, printIterations } from './iterate.ts';

const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The bundled example: what `demo` copies into a fresh repository. */
const EXAMPLE_FILES = ['agentdevel.config.json', 'agentdevel.config.schema.json', 'blueprints/support-agent', 'rubrics/orders'];

export interface DemoOptions extends CommonOptions {
  readonly dir?: string;
  readonly maxIterations?: string;
}

async function emptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

export async function demoCommand(io: Io, options: DemoOptions): Promise<number> {
  if (!options.dir) throw new AgentdevelError('USAGE', 'demo needs --dir DIR (a new or empty folder)');
  const maxIterations = parseMaxIterations(options.maxIterations);
  const dir = path.resolve(io.cwd, options.dir);
  if (!(await emptyOrMissing(dir))) throw new AgentdevelError('DEMO_DIR_NOT_EMPTY', `--dir: ${dir} is not empty`);
  const { reporter } = presentation(io, options);

  reporter.emit({ type: 'stage', stage: 'demo', message: `creating the example workspace in ${dir}` });
  await mkdir(dir, { recursive: true });
  for (const entry of EXAMPLE_FILES) {
    await cp(path.join(packageRoot, entry), path.join(dir, entry), { recursive: true });
  }
  await writeFile(path.join(dir, '.gitignore'), 'traces/\n.agentdevel/\n');
  await initRepository(dir, 'main');
  const repo = await GitRepo.open(dir);
  await repo.commitAll(dir, 'agentdevel demo: the initial blueprint and the orders task');

  const scoped = { ...options, C: dir };
  const command = await openCommand(io, scoped, 'demo');
  let stopReason: string;
  try {
    const outcome = await iterate(command.run, { maxIterations });
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
