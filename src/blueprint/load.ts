import { mkdir, readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { AgentdevelError } from '../domain/errors.ts';
import { parseJsonDocument } from '../domain/json-document.ts';
import type { BlueprintFile } from '../domain/model-port.ts';
import { compileTemplates, TemplateError, type Render } from '../template/handlebars.ts';
import { BundleError, bundleModule } from './bundle.ts';
import { blueprintManifestSchema, type BlueprintManifest } from './manifest.ts';

export const BLUEPRINT_FILE = 'blueprint.json';

export interface LoadedBlueprint {
  readonly name: string;
  readonly root: string;
  readonly manifest: BlueprintManifest;
  /** Renders the system prompt (tool-loop only). */
  readonly renderPrompt: Render | null;
  /** The bundled tool wrappers (tool-loop only). */
  readonly wrappersBundle: string | null;
}

export function blueprintRoot(workspace: string, name: string): string {
  return path.join(workspace, 'blueprints', name);
}

function invalid(message: string, location: { file?: string; line?: number; key?: string } = {}): AgentdevelError {
  return new AgentdevelError('BLUEPRINT_INVALID', message, { location });
}

export async function readManifest(root: string): Promise<BlueprintManifest> {
  const file = path.join(root, BLUEPRINT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw invalid(`${file}: missing (every blueprint folder needs a ${BLUEPRINT_FILE})`, { file });
  }
  return parseJsonDocument(text, file, blueprintManifestSchema, 'BLUEPRINT_INVALID');
}

/**
 * Loads a blueprint and proves it can run: the manifest validates, templates compile and the
 * tool wrappers bundle. (Whether the wrappers export the right shape is checked when the tool
 * host imports them.) `buildDir` receives the bundles.
 */
export async function loadBlueprint(workspace: string, name: string, buildDir: string): Promise<LoadedBlueprint> {
  const root = blueprintRoot(workspace, name);
  const manifest = await readManifest(root);
  if (manifest.runtime === 'command') {
    return { name, root, manifest, renderPrompt: null, wrappersBundle: null };
  }
  const renderPrompt = await compilePrompt(root, manifest.prompt);
  await mkdir(buildDir, { recursive: true });
  const wrappersBundle = path.join(buildDir, 'tools.mjs');
  const imports = manifest.tools.map((tool, i) => `import * as tool${i} from ${JSON.stringify(`./${tool}`)};`);
  const list = manifest.tools.map((tool, i) => `[${JSON.stringify(`blueprints/${name}/${tool}`)}, tool${i}]`);
  const entry = [
    "import { z as agentdevelZod } from 'zod';",
    ...imports,
    `export default [${list.join(', ')}];`,
    'export const toJSONSchema = agentdevelZod.toJSONSchema;',
  ].join('\n');
  try {
    await bundleModule(entry, root, wrappersBundle, [root]);
  } catch (error) {
    if (error instanceof BundleError) {
      const where = error.line === null ? error.file : `${error.file}:${error.line}`;
      throw invalid(`${where}: ${error.message}`, { file: error.file, ...(error.line === null ? {} : { line: error.line }) });
    }
    throw error;
  }
  return { name, root, manifest, renderPrompt, wrappersBundle };
}

async function compilePrompt(root: string, promptFile: string): Promise<Render> {
  const templates = (await listFiles(root)).filter((f) => f.endsWith('.hbs'));
  const sources = new Map<string, string>();
  for (const file of templates) sources.set(file, await readFile(path.join(root, file), 'utf8'));
  const main = sources.get(promptFile);
  if (main === undefined) {
    throw invalid(`${path.join(root, BLUEPRINT_FILE)}: prompt: "${promptFile}" is not a .hbs file of the blueprint`, {
      file: path.join(root, BLUEPRINT_FILE),
      key: 'prompt',
    });
  }
  const partials = Object.fromEntries(
    [...sources].filter(([file]) => file !== promptFile).map(([file, source]) => [file.replace(/\.hbs$/, ''), source]),
  );
  try {
    return compileTemplates({ main, partials }, promptFile);
  } catch (error) {
    if (error instanceof TemplateError) {
      const file = path.join(root, error.template.endsWith('.hbs') ? error.template : `${error.template}.hbs`);
      throw invalid(`${file}: template does not compile: ${error.message}`, { file });
    }
    throw error;
  }
}

/** rubrics/<task>/ of an environment module at rubrics/<task>/… */
function taskRootOf(environmentModule: string): string {
  const parts = environmentModule.split(path.sep);
  const at = parts.lastIndexOf('rubrics');
  return at >= 0 && parts[at + 1] ? parts.slice(0, at + 2).join(path.sep) : path.dirname(environmentModule);
}

/** Bundles the task's environment module for the tool host. */
export async function bundleEnvironment(environmentModule: string, buildDir: string): Promise<string> {
  await mkdir(buildDir, { recursive: true });
  const out = path.join(buildDir, 'environment.mjs');
  try {
    await bundleModule(`export * from ${JSON.stringify(environmentModule)};`, path.dirname(environmentModule), out, [taskRootOf(environmentModule)]);
  } catch (error) {
    if (error instanceof BundleError) {
      throw new AgentdevelError('TASK_INVALID', `${error.file}${error.line ? `:${error.line}` : ''}: ${error.message}`, {
        location: { file: error.file },
      });
    }
    throw error;
  }
  return out;
}

/** Relative paths of the files in a folder, recursively, sorted. */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name)))
    .sort();
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
