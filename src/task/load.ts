import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Case, Split } from '../domain/case.ts';
import { AgentdevelError } from '../domain/errors.ts';
import { parseJsonDocument } from '../domain/json-document.ts';
import { parseCases } from './cases.ts';
import { taskManifestSchema, type TaskManifest } from './manifest.ts';

export const TASK_FILE = 'task.json';

/** A task as loaded from rubrics/<task>/ at one version. Frozen: no RC may change it. */
export interface Task {
  readonly name: string;
  readonly root: string;
  readonly manifest: TaskManifest;
  readonly rubric: string;
  /** Absolute path of the environment module, when the task has one. */
  readonly environmentModule: string | null;
}

export function taskRoot(workspace: string, task: string): string {
  return path.join(workspace, 'rubrics', task);
}

export async function loadTask(workspace: string, name: string): Promise<Task> {
  const root = taskRoot(workspace, name);
  const file = path.join(root, TASK_FILE);
  const text = await readTaskFile(file);
  const manifest = parseJsonDocument(text, file, taskManifestSchema, 'TASK_INVALID');
  const rubric = await readTaskFile(path.join(root, manifest.rubric));
  return {
    name,
    root,
    manifest,
    rubric,
    environmentModule: manifest.environment ? path.join(root, manifest.environment) : null,
  };
}

export async function loadSplit(task: Task, split: Split): Promise<Case[]> {
  const file = path.join(task.root, `${split}.jsonl`);
  return parseCases(await readTaskFile(file), file);
}

async function readTaskFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new AgentdevelError('TASK_INVALID', `${file}: cannot be read`, { cause, location: { file } });
  }
}
