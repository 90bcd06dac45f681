import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { TaskBrief } from '../../domain/ports/model.ts';
import type { Workspace } from '../workspace/workspace.ts';

/** What the synthesizer is told about the task in `dir` (a checkout): the rubric, and the environment's API. */
export function readTaskBrief(workspace: Workspace, dir: string): Promise<TaskBrief> {
  const buildDir = path.join(workspace.stateDir, 'build', `environment-api-${randomBytes(3).toString('hex')}`);
  return workspace.files.tasks.readBrief(dir, workspace.config.task, buildDir);
}
