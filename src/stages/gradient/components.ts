import path from 'node:path';
import type { ComponentKind } from '../../domain/gradient.ts';
import type { BlueprintFile } from '../../domain/ports/model.ts';
import type { TraceEvent } from '../../domain/trace.ts';

/** One part of a blueprint a gradient record and a typed edit can name. */
export interface BlueprintComponent {
  /** "<kind>:<name>". */
  readonly id: string;
  readonly kind: ComponentKind;
  readonly name: string;
  /** Workspace-relative file; null for a member known only from traces. */
  readonly path: string | null;
  /** For a prompt section: its text (what an edit of it may change). */
  readonly text?: string;
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .slice(0, 3)
    .join('-') || 'section';

/**
 * The prompt's sections: split at markdown headings when it has any, else at blank lines
 * (paragraphs). Template lines (`{{…}}` blocks) stay with the section they are in.
 */
export function promptSections(prompt: string): Array<{ name: string; text: string }> {
  const lines = prompt.split('\n');
  const headed = lines.some((l) => /^#{1,6} /.test(l));
  const chunks: string[][] = [[]];
  for (const line of lines) {
    const starts = headed ? /^#{1,6} /.test(line) : line.trim() === '';
    if (starts && (chunks.at(-1) ?? []).some((l) => l.trim() !== '')) chunks.push([]);
    if (headed || line.trim() !== '') chunks.at(-1)?.push(line);
  }
  // Named by their first three words, not their position, so inserting a section renames no
  // other and a revision that keeps its opening keeps its name.
  const used = new Map<string, number>();
  return chunks
    .map((c) => c.join('\n').trim())
    .filter((text) => text !== '')
    .map((text) => {
      const base = slug((text.split('\n')[0] ?? '').replace(/^#+ /, ''));
      const seen = (used.get(base) ?? 0) + 1;
      used.set(base, seen);
      return { name: seen === 1 ? base : `${base}-${seen}`, text };
    });
}

interface Manifest {
  readonly prompt?: string;
  readonly tools?: readonly string[];
  readonly members?: ReadonlyArray<{ readonly name?: string }>;
}

/**
 * The components of a blueprint as its files show them: tool wrappers (named as they name
 * themselves), partials (templates other than the prompt), prompt sections, and members (a
 * crew's agents, from the manifest's `members` or from traces whose events carry a member name).
 */
export function blueprintComponents(files: readonly BlueprintFile[], root: string, traceMembers: readonly string[] = []): BlueprintComponent[] {
  const byPath = new Map(files.map((f) => [f.path, f.content]));
  let manifest: Manifest = {};
  try {
    manifest = JSON.parse(byPath.get(`${root}/blueprint.json`) ?? '{}') as Manifest;
  } catch {
    manifest = {};
  }
  const components: BlueprintComponent[] = [];
  const members = new Set([...(manifest.members ?? []).flatMap((m) => (typeof m.name === 'string' ? [m.name] : [])), ...traceMembers]);
  for (const name of [...members].sort()) components.push({ id: `member:${name}`, kind: 'member', name, path: null });
  for (const tool of manifest.tools ?? []) {
    const file = `${root}/${tool}`;
    const named = /\bname:\s*['"]([^'"]+)['"]/.exec(byPath.get(file) ?? '')?.[1];
    const name = named ?? path.posix.basename(tool).replace(/\.[cm]?[jt]s$/, '');
    components.push({ id: `tool:${name}`, kind: 'tool', name, path: file });
  }
  const promptFile = `${root}/${manifest.prompt ?? 'system.hbs'}`;
  for (const file of [...byPath.keys()].filter((p) => p.endsWith('.hbs') && p !== promptFile).sort()) {
    const name = file.slice(root.length + 1).replace(/\.hbs$/, '');
    components.push({ id: `partial:${name}`, kind: 'partial', name, path: file });
  }
  const prompt = byPath.get(promptFile);
  if (prompt !== undefined) {
    for (const section of promptSections(prompt)) components.push({ id: `section:${section.name}`, kind: 'section', name: section.name, path: promptFile, text: section.text });
  }
  return components;
}

/**
 * The member an event belongs to, when a crew's trace names one (`member` or `agent` on the
 * event): traces of single-agent blueprints name none.
 */
export function eventMember(event: TraceEvent): string | null {
  const named = event as unknown as { member?: unknown; agent?: unknown };
  if (typeof named.member === 'string' && named.member !== '') return named.member;
  if (typeof named.agent === 'string' && named.agent !== '') return named.agent;
  return null;
}
