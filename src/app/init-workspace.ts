import { access, appendFile, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE } from '../config/load.ts';
import { AgentdevelError } from '../domain/errors.ts';
import { DEFAULT_MODEL, OPENAI_PROVIDER } from '../domain/models.ts';
import { GitRepo, initRepository } from '../adapters/git/git.ts';
import { copyFromPackage, EXAMPLE_FILES, GITIGNORE, WORKSPACE_FILES } from './example.ts';

export type InitRuntime = 'command' | 'tool-loop';
export type InitProvider = 'anthropic' | 'openai';

/** The model every role of a scaffold gets for a provider (null: the scaffold's own, the offline mock). */
const PROVIDER_MODEL: Record<InitProvider, string> = { anthropic: DEFAULT_MODEL, openai: `${OPENAI_PROVIDER}:gpt-5.1` };

/** The command scaffold: a rule-based Node agent, a numeric scorer and six train cases, all passing. */
const COMMAND_FILES = ['agentdevel.config.json', 'blueprints/my-agent', 'rubrics/arithmetic'];

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );

export interface InitResult {
  readonly createdRepository: boolean;
  readonly blueprint: string;
  readonly files: readonly string[];
}

/**
 * Scaffolds a working workspace in `dir` (a git repository, made if there is none): `run`
 * works right after, with no edits. Nothing is committed; nothing existing is overwritten.
 */
export async function initWorkspace(dir: string, runtime: InitRuntime, provider: InitProvider | null = null): Promise<InitResult> {
  const entries = runtime === 'command' ? [...COMMAND_FILES, ...WORKSPACE_FILES] : EXAMPLE_FILES;
  const taken = [];
  for (const entry of entries) if (await exists(path.join(dir, entry))) taken.push(entry);
  if (taken.length > 0) {
    throw new AgentdevelError('USAGE', `init: ${dir} already has ${taken.slice(0, 3).join(', ')}${taken.length > 3 ? ', …' : ''}; nothing was written`, {
      hint: 'Run init in a new or empty git repository.',
    });
  }
  let createdRepository = false;
  let repo: GitRepo | null;
  try {
    repo = await GitRepo.open(dir);
  } catch (error) {
    if (!(error instanceof AgentdevelError && error.code === 'NOT_A_REPOSITORY')) throw error;
    repo = null;
  }
  // A workspace is the top of its repository (every other command looks for the config there):
  // a subfolder of a repository is refused here, before anything is written.
  if (repo && (await realpath(repo.root)) !== (await realpath(dir))) {
    throw new AgentdevelError('USAGE', `init: ${dir} is a subfolder of the git repository ${repo.root}; a workspace is the top of its repository; nothing was written`, {
      hint: `Run init at the top of the repository (agentdevel init -C ${repo.root}), or in a folder of its own (git init there first, or let init create the repository in an empty folder outside it).`,
    });
  }
  if (!repo) {
    await initRepository(dir, 'main');
    repo = await GitRepo.open(dir);
    createdRepository = true;
  }
  if (runtime === 'command') await copyFromPackage(COMMAND_FILES, dir, 'scaffolds/command');
  await copyFromPackage(runtime === 'command' ? WORKSPACE_FILES : EXAMPLE_FILES, dir);
  // The line is the branch the repository is on (main, master, trunk…).
  const branch = (await repo.currentBranch()) ?? 'main';
  const configFile = path.join(dir, CONFIG_FILE);
  const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
  const model = provider ? PROVIDER_MODEL[provider] : null;
  const models = model ? { models: { agent: model, critic: model, diagnostician: model, synthesizer: model } } : {};
  if (branch !== 'main' || model) await writeFile(configFile, `${JSON.stringify({ ...config, ...models, ...(branch === 'main' ? {} : { line: { branch } }) }, null, 2)}\n`);
  const ignoreFile = path.join(dir, '.gitignore');
  const ignored = (await exists(ignoreFile)) ? await readFile(ignoreFile, 'utf8') : '';
  const missing = GITIGNORE.split('\n').filter((line) => line && !ignored.split('\n').includes(line));
  if (missing.length > 0) await appendFile(ignoreFile, `${ignored === '' || ignored.endsWith('\n') ? '' : '\n'}${missing.join('\n')}\n`);
  return { createdRepository, blueprint: String(config.blueprint), files: [...entries, '.gitignore'] };
}
