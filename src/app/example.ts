import { cp, mkdir, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentdevelError } from '../domain/errors.ts';
import { GitRepo, initRepository } from '../adapters/git/git.ts';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** What every workspace gets: the JSON Schemas editors read, and a README in each folder agentdevel writes to. */
export const WORKSPACE_FILES = ['agentdevel.config.schema.json', 'blueprint.schema.json', 'task.schema.json', 'releases/README.md', 'diagnostics/README.md', 'traces/README.md'];

/** The bundled example (a tool-loop agent the mock engine knows): what `demo` and `init --runtime tool-loop` copy. */
export const EXAMPLE_FILES = ['agentdevel.config.json', 'blueprints/support-agent', 'rubrics/orders', ...WORKSPACE_FILES];

/** The bundled examples `demo --example NAME` builds: the files each copies, and where from. */
export const EXAMPLES = {
  orders: { files: EXAMPLE_FILES, from: '', shared: [] as string[] },
  // The orders task as a crew: its own config, README and blueprint; the task and the schemas are shared.
  'orders-crew': { files: ['agentdevel.config.json', 'README.md', 'blueprints/orders-crew'], from: 'examples/orders-crew', shared: ['rubrics/orders', ...WORKSPACE_FILES] },
} as const;
export type ExampleName = keyof typeof EXAMPLES;

/** traces/ holds large files; its README stays, so a newcomer sees where the traces land. */
export const GITIGNORE = 'traces/*\n!traces/README.md\n.agentdevel/\n';

/** Copies entries of the installed package into a workspace. */
export async function copyFromPackage(entries: readonly string[], dir: string, from = ''): Promise<void> {
  for (const entry of entries) {
    await cp(path.join(packageRoot, from, entry), path.join(dir, entry), { recursive: true });
  }
}

/** Whether `dir` can take a new workspace: a folder that is missing or empty. */
async function demoFolderState(dir: string): Promise<'fit' | 'not empty' | 'a file' | 'under a file'> {
  try {
    return (await readdir(dir)).length === 0 ? 'fit' : 'not empty';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'fit';
    if (code !== 'ENOTDIR') throw error;
    // ENOTDIR: the path itself is a file, or one of the folders above it is.
    return (await stat(dir).then((found) => !found.isDirectory(), () => false)) ? 'a file' : 'under a file';
  }
}

const DEMO_FOLDER_PROBLEM = { 'not empty': 'is not empty', 'a file': 'is a file, not a folder', 'under a file': 'lies under a file, not a folder' } as const;

/**
 * Creates the example workspace in `dir` (new or empty) as a git repository with one commit on
 * `main`. It is built beside `dir` and renamed into place, so a command killed meanwhile leaves
 * either no workspace (and `demo` can start again) or a whole one, never one without its commit.
 */
export async function scaffoldExample(dir: string, example: ExampleName = 'orders'): Promise<void> {
  const state = await demoFolderState(dir);
  if (state !== 'fit') throw new AgentdevelError('DEMO_DIR_NOT_EMPTY', `--dir: ${dir} ${DEMO_FOLDER_PROBLEM[state]}`);
  const building = path.join(path.dirname(dir), `.${path.basename(dir)}.partial-${process.pid}`);
  await rm(building, { recursive: true, force: true });
  await mkdir(building, { recursive: true });
  try {
    const { files, from, shared } = EXAMPLES[example];
    await copyFromPackage(files, building, from);
    await copyFromPackage(shared, building);
    await writeFile(path.join(building, '.gitignore'), GITIGNORE);
    await initRepository(building, 'main');
    const repo = await GitRepo.open(building);
    await repo.commitAll(building, `agentdevel demo: the initial blueprint and the orders task${example === 'orders' ? '' : ` (example ${example})`}`);
    await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await rename(building, dir);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
}
