import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentdevelError } from '../domain/errors.ts';
import { GitRepo, initRepository } from '../git/git.ts';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The bundled example: what `demo` copies into a fresh repository. */
const EXAMPLE_FILES = ['agentdevel.config.json', 'agentdevel.config.schema.json', 'blueprints/support-agent', 'rubrics/orders'];

async function emptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Creates the example workspace in `dir` (new or empty) as a git repository with one commit on `main`. */
export async function scaffoldExample(dir: string): Promise<void> {
  if (!(await emptyOrMissing(dir))) throw new AgentdevelError('DEMO_DIR_NOT_EMPTY', `--dir: ${dir} is not empty`);
  await mkdir(dir, { recursive: true });
  for (const entry of EXAMPLE_FILES) {
    await cp(path.join(packageRoot, entry), path.join(dir, entry), { recursive: true });
  }
  await writeFile(path.join(dir, '.gitignore'), 'traces/\n.agentdevel/\n');
  await initRepository(dir, 'main');
  const repo = await GitRepo.open(dir);
  await repo.commitAll(dir, 'agentdevel demo: the initial blueprint and the orders task');
}
