import { createHash } from 'node:crypto';
import path from 'node:path';
import type { FileEdit } from '../../domain/release-candidate.ts';

export function blueprintPrefix(blueprint: string): string {
  return `blueprints/${blueprint}/`;
}

/** True when a workspace-relative path lies inside the blueprint folder. */
export function insideBlueprint(file: string, blueprint: string): boolean {
  if (file.includes('\\') || path.posix.isAbsolute(file)) return false;
  const normalized = path.posix.normalize(file);
  return normalized === file.replace(/^\.\//, '') && !normalized.split('/').includes('..') && normalized.startsWith(blueprintPrefix(blueprint));
}

/** Paths a change touches outside the blueprint folder: any of them rejects the RC before it runs. */
export function outsideBlueprint(paths: readonly string[], blueprint: string): string[] {
  return paths.filter((p) => !insideBlueprint(p, blueprint));
}

/** Everything wrong with an RC's edits, one line each; empty when they may be applied. */
export function editProblems(edits: readonly FileEdit[], blueprint: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const edit of edits) {
    if (!insideBlueprint(edit.path, blueprint)) {
      problems.push(`${edit.path}: outside ${blueprintPrefix(blueprint)} (an RC may edit its blueprint folder only)`);
      continue;
    }
    if (seen.has(edit.path)) problems.push(`${edit.path}: edited twice`);
    seen.add(edit.path);
    if (edit.content === null && edit.path === `${blueprintPrefix(blueprint)}blueprint.json`) problems.push(`${edit.path}: cannot be deleted`);
    if (edit.content !== null && edit.content.length > 200_000) problems.push(`${edit.path}: larger than 200 kB`);
  }
  return problems;
}

/** A stable identity of an RC's edits, to recognise a proposal that was already tried. */
export function editsFingerprint(edits: readonly FileEdit[]): string {
  const hash = createHash('sha256');
  for (const edit of [...edits].sort((a, b) => a.path.localeCompare(b.path))) {
    hash.update(edit.path).update('\0').update(edit.content ?? '\u0000deleted').update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}
