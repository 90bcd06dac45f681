import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleEnvironment, listFiles } from '../blueprint/load.ts';
import { AgentdevelError } from '../../domain/errors.ts';
import type { TaskBrief } from '../../domain/ports/model.ts';
import { describeEnvironmentApi, type SourceFile } from './environment-api.ts';
import { loadSplit, loadTask } from './load.ts';

const SOURCE = /\.(?:[cm]?ts|[cm]?js)$/;

/**
 * What the synthesizer is told about the task `name` in `dir` (a checkout): the rubric, and the
 * environment's API generated from its module. The module is the task's own trusted code (the
 * pipeline already runs it in-process for the expected states); it is bundled, loaded, and
 * asked for the `api` of the first train case, whose methods are then described.
 */
export async function readTaskBrief(dir: string, name: string, buildDir: string): Promise<TaskBrief> {
  const task = await loadTask(dir, name);
  if (!task.environmentModule) return { rubric: task.rubric, environmentApi: null };
  try {
    const bundle = await bundleEnvironment(task.environmentModule, buildDir);
    const loaded = (await import(pathToFileURL(bundle).href)) as { createEnvironment?: (c: unknown) => unknown };
    if (typeof loaded.createEnvironment !== 'function') {
      throw new AgentdevelError('TASK_INVALID', `${task.environmentModule}: the task environment must export createEnvironment(case)`, { location: { file: task.environmentModule } });
    }
    const [first] = await loadSplit(task, 'train');
    const environment = (await loaded.createEnvironment(first ?? {})) as { api?: unknown } | null;
    const api = environment && typeof environment.api === 'object' && environment.api !== null ? environment.api : {};
    const folder = path.dirname(task.environmentModule);
    const sources: SourceFile[] = [];
    for (const file of (await listFiles(folder)).filter((f) => SOURCE.test(f))) {
      sources.push({ file, text: await readFile(path.join(folder, file), 'utf8') });
    }
    // The entry module first: its declarations win over same-named ones elsewhere.
    sources.sort((a, b) => Number(path.join(folder, b.file) === task.environmentModule) - Number(path.join(folder, a.file) === task.environmentModule));
    return { rubric: task.rubric, environmentApi: describeEnvironmentApi(api, sources) };
  } finally {
    await rm(buildDir, { recursive: true, force: true });
  }
}
