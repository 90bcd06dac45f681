import path from 'node:path';

/** The manifest file of a blueprint folder. */
export const BLUEPRINT_FILE = 'blueprint.json';

/** The folder of blueprint `name` in a workspace (or a checkout standing in for it). */
export function blueprintRoot(workspace: string, name: string): string {
  return path.join(workspace, 'blueprints', name);
}

/** A file as the user knows it: relative to the workspace (or the checkout standing in for it). */
export function shownPath(workspace: string, file: string): string {
  const relative = path.relative(workspace, file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
}
