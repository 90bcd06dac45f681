import type { Dirent } from 'node:fs';
import { mkdir, readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError, type ErrorLocation } from '../../domain/errors.ts';
import { parseJsonDocument } from '../../domain/json-document.ts';
import type { BlueprintFile } from '../../domain/ports/model.ts';
import { checkTemplateSet, compileTemplates, TemplateError, type Render } from '../template/handlebars.ts';
import { BundleError, bundleModule } from './bundle.ts';
import { blueprintManifestSchema, type BlueprintManifest, type CrewMember, type RuntimeKind } from '../../domain/blueprint-manifest.ts';
import { BLUEPRINT_FILE, blueprintRoot, shownPath } from '../../domain/blueprint-paths.ts';


export interface LoadedBlueprint {
  readonly name: string;
  /** The workspace (or checkout) it was loaded from; errors name files relative to it. */
  readonly workspace: string;
  readonly root: string;
  readonly manifest: BlueprintManifest;
  /** Renders the system prompt (tool-loop), or the orchestrator's (crew). */
  readonly renderPrompt: Render | null;
  /** Renders each crew member's system prompt, by member name (empty unless crew). */
  readonly memberPrompts: ReadonlyMap<string, Render>;
  /** The bundled tool wrappers (tool-loop and crew). */
  readonly wrappersBundle: string | null;
}

/** Every tool wrapper file a blueprint uses, once each, in the order the manifest first names them (the host lists tools in this order). */
export function toolFilesOf(manifest: BlueprintManifest): string[] {
  if (manifest.runtime === 'command') return [];
  if (manifest.runtime === 'tool-loop') return [...manifest.tools];
  return [...new Set([...manifest.orchestrator.tools, ...manifest.members.flatMap((m) => m.tools)])];
}

/** The tool name a wrapper file is expected to define (its file name), for trial renders before the host has loaded it. */
const guessedToolName = (file: string): string => path.basename(file).replace(/\.[^.]*$/, '');

type ToolSummary = { name: string; description: string };


/** A blueprint error the user fixes; `cause` is the failure it was read from (a file system error, a template's, the bundler's). */
function invalid(message: string, location: ErrorLocation = {}, cause?: unknown): AgentdevelError {
  return new AgentdevelError('BLUEPRINT_INVALID', message, { location, cause });
}

function at(file: string, line: number | null): string {
  return line === null ? file : `${file}:${line}`;
}

export async function readManifest(workspace: string, root: string): Promise<BlueprintManifest> {
  const file = shownPath(workspace, path.join(root, BLUEPRINT_FILE));
  let text: string;
  try {
    text = await readFile(path.join(root, BLUEPRINT_FILE), 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') throw cause;
    throw invalid(`${file}: missing (every blueprint folder needs a ${BLUEPRINT_FILE})`, { file }, cause);
  }
  return parseJsonDocument(text, file, blueprintManifestSchema, 'BLUEPRINT_INVALID');
}

const within = (file: string, root: string): boolean => file === root || file.startsWith(`${root}${path.sep}`);

/**
 * Symbolic links in the blueprint folder that lead out of it (committed or new, to a file or a
 * folder, directly or through other links). A blueprint is loaded only from a checkout in which
 * no path leaves its folder, so a link can neither pull the task's files (say, the test split)
 * into a prompt nor let an RC reach past its scope.
 */
async function refuseEscapingLinks(workspace: string, root: string): Promise<void> {
  let realRoot: string;
  try {
    realRoot = await realpath(root);
    if (!(await stat(realRoot)).isDirectory()) throw invalid(`${shownPath(workspace, root)}: not a folder`, { file: shownPath(workspace, root) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw invalid(`${shownPath(workspace, root)}: missing (the blueprint named in agentdevel.config.json has no folder)`, { file: shownPath(workspace, root) }, error);
  }
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isSymbolicLink()) continue;
    const link = path.join(parentOf(entry), entry.name);
    const target = await readlink(link);
    let resolved: string;
    try {
      resolved = await realpath(link);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw invalid(`${shownPath(workspace, link)}: a symbolic link that loops (to ${target})`, { file: shownPath(workspace, link) }, error);
      if (code !== 'ENOENT') throw error;
      // A link to nothing: judged by where it points.
      resolved = path.resolve(await realpath(path.dirname(link)), target);
    }
    if (!within(resolved, realRoot)) {
      const file = shownPath(workspace, link);
      throw invalid(`${file}: a symbolic link to ${target}, outside the blueprint folder (a blueprint may link only to its own files)`, { file });
    }
  }
}

/** Tool wrappers as lazily imported modules, so the host can name the one that fails to import. */
function wrappersEntry(name: string, tools: readonly string[]): string {
  const list = tools.map((tool) => `[${JSON.stringify(`blueprints/${name}/${tool}`)}, () => import(${JSON.stringify(`./${tool}`)})]`);
  return [
    "import { z as agentdevelZod } from 'zod';",
    `export default [${list.join(', ')}];`,
    'export const toJSONSchema = agentdevelZod.toJSONSchema;',
  ].join('\n');
}

/**
 * What loadBlueprint checks, per runtime, in its order. The synthesizer is told exactly this
 * list (see brief.ts), so a request never promises a check that is not made.
 */
export const BLUEPRINT_CHECKS: { readonly [K in RuntimeKind]: readonly string[] } = {
  'tool-loop': [
    'no symbolic link leads out of the blueprint folder',
    'blueprint.json is valid for its runtime',
    'every tool wrapper it lists is a file of the blueprint folder',
    'every .hbs template compiles and every partial it names exists',
    'the system prompt renders with the tools',
    'the tool wrappers bundle and import, each exporting { name, description, inputSchema, run }',
  ],
  command: [
    'no symbolic link leads out of the blueprint folder',
    'blueprint.json is valid for its runtime',
    'every .hbs template compiles and every partial it names exists',
    'the executable in "command", when it is a path (it contains a "/"), is a file of the blueprint folder',
  ],
  crew: [
    'no symbolic link leads out of the blueprint folder',
    'blueprint.json is valid for its runtime (every member named once; what each "sees" is "context", "request" or another member)',
    'every tool wrapper the orchestrator or a member lists is a file of the blueprint folder',
    'every .hbs template compiles and every partial it names exists',
    'the orchestrator\'s and every member\'s system prompt render with their tools',
    'the tool wrappers bundle and import, each exporting { name, description, inputSchema, run }',
  ],
};

/**
 * Loads a blueprint and proves it can run: no link leaves its folder, the manifest validates,
 * the prompt template and its partials compile and render, and the tool wrappers bundle.
 * (Whether the wrappers import and export the right shape is checked when the tool host starts.)
 * `buildDir` receives the bundles. Errors name the file (and line) relative to `workspace`.
 */
export async function loadBlueprint(workspace: string, name: string, buildDir: string): Promise<LoadedBlueprint> {
  const root = blueprintRoot(workspace, name);
  await refuseEscapingLinks(workspace, root);
  const manifest = await readManifest(workspace, root);
  if (manifest.runtime === 'command') {
    // The agent renders its templates itself; a partial it names but lacks would fail every case at run time.
    await checkTemplates(workspace, root);
    await checkExecutable(workspace, root, manifest.command[0] as string);
    return { name, workspace, root, manifest, renderPrompt: null, memberPrompts: new Map(), wrappersBundle: null };
  }
  await checkToolFiles(workspace, root, manifest);
  const mainPrompt = manifest.runtime === 'tool-loop' ? manifest.prompt : manifest.orchestrator.prompt;
  const renderPrompt = await compilePrompt(workspace, root, mainPrompt, manifest.runtime === 'tool-loop' ? 'prompt' : 'orchestrator.prompt');
  const memberPrompts = new Map<string, Render>();
  if (manifest.runtime === 'crew') {
    for (const [i, member] of manifest.members.entries()) memberPrompts.set(member.name, await compilePrompt(workspace, root, member.prompt, `members[${i}].prompt`, member.name));
  }
  const loaded: LoadedBlueprint = { name, workspace, root, manifest, renderPrompt, memberPrompts, wrappersBundle: null };
  // A trial render with the tools as the manifest lists them: what fails only at render time
  // (a missing helper, a partial inside a branch) fails here, before anything runs.
  renderAllPrompts(loaded, toolFilesOf(manifest).map((tool) => ({ name: guessedToolName(tool), description: '' })), guessedToolName);
  await mkdir(buildDir, { recursive: true });
  const wrappersBundle = path.join(buildDir, 'tools.mjs');
  try {
    await bundleModule(wrappersEntry(name, toolFilesOf(manifest)), root, wrappersBundle, [root]);
  } catch (error) {
    if (error instanceof BundleError) {
      const file = shownPath(workspace, error.file);
      throw invalid(`${at(file, error.line)}: ${error.message}`, { file, ...(error.line === null ? {} : { line: error.line }) }, error);
    }
    throw error;
  }
  return { ...loaded, wrappersBundle };
}

/**
 * Renders every system prompt of a blueprint with the tools the host defines (`nameOf` maps a
 * wrapper file to its tool name): what a candidate check and a trial render need.
 */
export function renderAllPrompts(blueprint: LoadedBlueprint, tools: readonly ToolSummary[], nameOf: (file: string) => string): void {
  const { manifest } = blueprint;
  if (manifest.runtime === 'command') return;
  if (manifest.runtime === 'tool-loop') {
    renderPromptFor(blueprint, tools);
    return;
  }
  const pick = (files: readonly string[]) => files.map((file) => tools.find((t) => t.name === nameOf(file)) ?? { name: nameOf(file), description: '' });
  renderOrchestratorPrompt(blueprint, pick(manifest.orchestrator.tools));
  for (const member of manifest.members) renderMemberPrompt(blueprint, member, pick(member.tools));
}

/** Renders the system prompt; a template that fails is the blueprint's error, naming its file and line. */
export function renderPromptFor(blueprint: LoadedBlueprint, tools: readonly ToolSummary[]): string {
  const { manifest, renderPrompt } = blueprint;
  if (manifest.runtime !== 'tool-loop' || renderPrompt === null) throw new Error('unreachable: only tool-loop blueprints have a prompt');
  return renderSystemPrompt(blueprint.workspace, blueprint.root, manifest.prompt, renderPrompt, { tools });
}

/** The orchestrator's system prompt: its own tools, then its members (which it calls as tools). */
export function renderOrchestratorPrompt(blueprint: LoadedBlueprint, ownTools: readonly ToolSummary[]): string {
  const { manifest, renderPrompt } = blueprint;
  if (manifest.runtime !== 'crew' || renderPrompt === null) throw new Error('unreachable: only crews have an orchestrator');
  const members = manifest.members.map((m) => ({ name: m.name, description: m.description }));
  return renderSystemPrompt(blueprint.workspace, blueprint.root, manifest.orchestrator.prompt, renderPrompt, { tools: [...ownTools, ...members], members });
}

/** A member's system prompt: its tools and its own name and description. */
export function renderMemberPrompt(blueprint: LoadedBlueprint, member: CrewMember, tools: readonly ToolSummary[]): string {
  const render = blueprint.memberPrompts.get(member.name);
  if (!render) throw new Error(`unreachable: no prompt compiled for member ${member.name}`);
  return renderSystemPrompt(blueprint.workspace, blueprint.root, member.prompt, render, { tools, member: { name: member.name, description: member.description } });
}

function renderSystemPrompt(workspace: string, root: string, promptFile: string, render: Render, context: Record<string, unknown>): string {
  try {
    return render(context);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    throw templateInvalid(workspace, root, promptFile, error, 'cannot be rendered');
  }
}

function templateInvalid(workspace: string, root: string, promptFile: string, error: TemplateError, what: string): AgentdevelError {
  const template = error.template === promptFile || error.template.endsWith('.hbs') ? error.template : `${error.template}.hbs`;
  const file = shownPath(workspace, path.join(root, template === promptFile ? promptFile : template));
  return invalid(`${at(file, error.line)}: ${what}: ${error.message}`, { file, ...(error.line === null ? {} : { line: error.line }) }, error);
}

/** Every .hbs file of a blueprint, by its path relative to the blueprint folder. */
async function readTemplates(root: string): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  for (const file of (await listFiles(root)).filter((f) => f.endsWith('.hbs'))) sources.set(file, await readFile(path.join(root, file), 'utf8'));
  return sources;
}

/** A command blueprint's templates: each compiles, and every partial one names is another .hbs file of the folder. */
async function checkTemplates(workspace: string, root: string): Promise<void> {
  const sources = await readTemplates(root);
  try {
    checkTemplateSet(new Map([...sources].map(([file, source]) => [file.replace(/\.hbs$/, ''), source])));
  } catch (error) {
    if (error instanceof TemplateError) throw templateInvalid(workspace, root, '', error, 'template is invalid');
    throw error;
  }
}

/** Every wrapper the manifest lists is a file of the blueprint folder; the error names who lists it (the agent, the orchestrator, a member). */
async function checkToolFiles(workspace: string, root: string, manifest: Exclude<BlueprintManifest, { runtime: 'command' }>): Promise<void> {
  const listed: Array<[string, string, readonly string[]]> =
    manifest.runtime === 'tool-loop'
      ? [['the agent', 'tools', manifest.tools]]
      : [['the orchestrator', 'orchestrator.tools', manifest.orchestrator.tools], ...manifest.members.map((m, i): [string, string, readonly string[]] => [`member "${m.name}"`, `members.${i}.tools`, m.tools])];
  for (const [who, key, tools] of listed) {
    for (const tool of tools) {
      const file = path.join(root, tool);
      const found = await stat(file).then(
        (s) => s.isFile(),
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return false;
          throw error;
        },
      );
      if (found) continue;
      const manifestFile = shownPath(workspace, path.join(root, BLUEPRINT_FILE));
      throw invalid(`${manifestFile}: ${key}: ${who} lists "${tool}", which is not a file of the blueprint folder (${shownPath(workspace, file)} is missing)`, { file: manifestFile, key });
    }
  }
}

/** A command whose executable is a path (./agent.py, bin/run) must find it in the blueprint folder. */
async function checkExecutable(workspace: string, root: string, executable: string): Promise<void> {
  if (!executable.includes('/') || path.isAbsolute(executable)) return;
  const file = path.join(root, executable);
  const found = await stat(file).then(
    (s) => s.isFile(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return false;
      throw error;
    },
  );
  if (!found) {
    const manifestFile = shownPath(workspace, path.join(root, BLUEPRINT_FILE));
    throw invalid(`${manifestFile}: command: "${executable}" is not a file of the blueprint folder (${shownPath(workspace, file)} is missing)`, { file: manifestFile, key: 'command' });
  }
}

/** `key` is where the manifest names the template (a crew's member by its place, with `member` its name), so an error points at that key. */
async function compilePrompt(workspace: string, root: string, promptFile: string, key: string, member: string | null = null): Promise<Render> {
  const sources = await readTemplates(root);
  const main = sources.get(promptFile);
  if (main === undefined) {
    const file = shownPath(workspace, path.join(root, BLUEPRINT_FILE));
    const whose = member === null ? '' : ` (member "${member}")`;
    throw invalid(`${file}: ${key}${whose}: "${promptFile}" is not a .hbs file of the blueprint`, { file, key });
  }
  const partials = Object.fromEntries(
    [...sources].filter(([file]) => file !== promptFile).map(([file, source]) => [file.replace(/\.hbs$/, ''), source]),
  );
  try {
    return compileTemplates({ main, partials }, promptFile);
  } catch (error) {
    if (error instanceof TemplateError) throw templateInvalid(workspace, root, promptFile, error, 'template does not compile');
    throw error;
  }
}

/** rubrics/<task>/ of an environment module at rubrics/<task>/… */
function taskRootOf(environmentModule: string): string {
  const parts = environmentModule.split(path.sep);
  const at = parts.lastIndexOf('rubrics');
  return at >= 0 && parts[at + 1] ? parts.slice(0, at + 2).join(path.sep) : path.dirname(environmentModule);
}

/** Bundles the task's environment module for the tool host. Errors name the file relative to `workspace`. */
export async function bundleEnvironment(environmentModule: string, buildDir: string, workspace?: string): Promise<string> {
  await mkdir(buildDir, { recursive: true });
  const out = path.join(buildDir, 'environment.mjs');
  try {
    await bundleModule(`export * from ${JSON.stringify(environmentModule)};`, path.dirname(environmentModule), out, [taskRootOf(environmentModule)]);
  } catch (error) {
    if (error instanceof BundleError) {
      const file = workspace === undefined ? error.file : shownPath(workspace, error.file);
      throw new AgentdevelError('TASK_INVALID', `${at(file, error.line)}: ${error.message}`, { location: { file, ...(error.line === null ? {} : { line: error.line }) }, cause: error });
    }
    throw error;
  }
  return out;
}

/** The folder of a directory entry (`parentPath` from Node 20.12, `path` before). */
function parentOf(entry: Dirent): string {
  return entry.parentPath ?? (entry as unknown as { path: string }).path;
}

/** Whether a link leads to a file (a link to nothing leads nowhere). */
async function linksToFile(link: string): Promise<boolean> {
  try {
    return (await stat(link)).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return false;
    throw error;
  }
}

/** Relative paths of the files in a folder (links to files included), recursively, sorted. */
export async function listFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const full = path.join(parentOf(entry), entry.name);
    if (entry.isFile() || (entry.isSymbolicLink() && (await linksToFile(full)))) files.push(path.relative(root, full));
  }
  return files.sort();
}

/** The blueprint's text files, as the synthesizer sees them (paths relative to the workspace). */
export async function readBlueprintFiles(workspace: string, name: string): Promise<BlueprintFile[]> {
  const root = blueprintRoot(workspace, name);
  const files: BlueprintFile[] = [];
  for (const file of await listFiles(root)) {
    const content = await readFile(path.join(root, file), 'utf8');
    if (content.includes('\u0000') || content.length > 200_000) continue;
    files.push({ path: `blueprints/${name}/${file}`, content });
  }
  return files;
}

/** Maps a wrapper file to the name its module defines: the host lists tools in the order of `toolFilesOf`. */
export function toolNameOf(blueprint: LoadedBlueprint, tools: readonly ToolSummary[]): (file: string) => string {
  const files = toolFilesOf(blueprint.manifest);
  return (file) => tools[files.indexOf(file)]?.name ?? guessedToolName(file);
}
