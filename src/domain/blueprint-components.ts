// The components of a blueprint: the one model that gradient records, typed edits and their
// scope check, credit per component and the synthesizer's request name. It reads a version of
// the blueprint as files (no loading, no running), so it works on a half-applied RC too, and it
// accounts for every key of blueprint.json and every file an agent reads:
//   - `agent` (tool-loop, command): the single agent's manifest (its prompt's name, its tool
//     list, its budgets); for a command agent also its program (every file that is no template);
//   - `orchestrator` (crew): the crew's manifest apart from its members (the orchestrator's
//     prompt's name, tools and budget, the crew's token budget and temperature);
//   - `member:<name>` (crew): the member's manifest entry (description, tools, sees, budgets)
//     and its prompt file;
//   - `tool:<name>`: a tool wrapper's file, named as the wrapper names itself;
//   - `partial:<path>`: a template that is no agent's prompt;
//   - `section:<slug>`: a section of the main prompt (tool-loop's prompt, the orchestrator's).
// A helper module that wrappers import is no component of its own.
import type { RuntimeKind } from './blueprint-manifest.ts';
import type { EditType, FileEdit, TypedChange } from './release-candidate.ts';
import { ORCHESTRATOR } from './trace.ts';

/** A file of a blueprint as text (the model port's BlueprintFile: kept structural here, as gradient.ts, which the port imports, depends on this module). */
interface BlueprintFile {
  readonly path: string;
  readonly content: string;
}

export const blueprintComponentKinds = ['agent', 'orchestrator', 'member', 'tool', 'partial', 'section'] as const;
export type BlueprintComponentKind = (typeof blueprintComponentKinds)[number];

/** The main agent's name where an agent is named ("main": the single agent, or the orchestrator). */
export const MAIN_AGENT = 'main';

export interface BlueprintComponent {
  /** "agent", "orchestrator", or "<kind>:<name>" (member:lookup, tool:get_order, partial:partials/house, section:you-are-the). */
  readonly id: string;
  readonly kind: BlueprintComponentKind;
  readonly name: string;
  /** Its main file, relative to the workspace (blueprint.json for the agent and the orchestrator, a member's prompt); null for a member known only from traces. */
  readonly path: string | null;
  /** Every file it spans (a member: blueprint.json and its prompt; a command agent: its program). */
  readonly files: readonly string[];
  /** What it says it does (a member's or a wrapper's description), or "". */
  readonly description: string;
  /** Partials only: the agents whose prompt includes it, directly or through another partial ("main" or a member's name). */
  readonly includedBy?: readonly string[];
  /** Sections only: its text. */
  readonly text?: string;
  /** What an edit of it changes: two versions of a component with the same signature are the same. */
  readonly signature: string;
}

/**
 * Files that are a wrapper or a member's prompt in another version of the same blueprint. The
 * scope check compares a blueprint before an RC, after it, and with one edit applied alone; a
 * wrapper whose file exists but is not listed yet (or any more) stays a wrapper there, and a
 * member's prompt file never turns into a partial half-way.
 */
export interface ComponentClaims {
  readonly toolFiles: ReadonlySet<string>;
  readonly memberPrompts: ReadonlySet<string>;
}

const NO_CLAIMS: ComponentClaims = { toolFiles: new Set(), memberPrompts: new Set() };

type Runtime = RuntimeKind;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const text = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

/** blueprint.json read leniently: a half-applied RC may not validate, and its components are still what they are. */
function manifestOf(files: ReadonlyMap<string, string>, root: string): { manifest: Json; runtime: Runtime } {
  let manifest: Json = {};
  try {
    const parsed: unknown = JSON.parse(files.get(`${root}/blueprint.json`) ?? '{}');
    if (isObject(parsed)) manifest = parsed;
  } catch {
    manifest = {};
  }
  const declared = manifest.runtime;
  const runtime: Runtime = declared === 'command' || declared === 'crew' || declared === 'tool-loop' ? declared : Array.isArray(manifest.members) ? 'crew' : 'tool-loop';
  return { manifest, runtime };
}

const membersOf = (manifest: Json): Json[] => (Array.isArray(manifest.members) ? manifest.members.filter((m): m is Json => isObject(m) && typeof m.name === 'string') : []);

function toolListOf(manifest: Json, runtime: Runtime): string[] {
  if (runtime === 'command') return [];
  if (runtime === 'tool-loop') return strings(manifest.tools);
  const orchestrator = isObject(manifest.orchestrator) ? manifest.orchestrator : {};
  return [...new Set([...strings(orchestrator.tools), ...membersOf(manifest).flatMap((m) => strings(m.tools))])];
}

function mainPromptOf(manifest: Json, runtime: Runtime): string | null {
  if (runtime === 'command') return null;
  if (runtime === 'tool-loop') return text(manifest.prompt, 'system.hbs');
  return text(isObject(manifest.orchestrator) ? manifest.orchestrator.prompt : undefined, 'system.hbs');
}

/** The runtime a version's blueprint.json names (read leniently, like the components). */
export function blueprintRuntimeOf(files: readonly BlueprintFile[], root: string): Runtime {
  return manifestOf(new Map(files.map((f) => [f.path, f.content])), root).runtime;
}

/** The wrappers and member prompts a version names (relative to the workspace): what it claims. */
export function claimsOf(files: readonly BlueprintFile[], root: string): ComponentClaims {
  const { manifest, runtime } = manifestOf(new Map(files.map((f) => [f.path, f.content])), root);
  return {
    toolFiles: new Set(toolListOf(manifest, runtime).map((t) => `${root}/${t}`)),
    memberPrompts: new Set(runtime === 'crew' ? membersOf(manifest).flatMap((m) => (typeof m.prompt === 'string' ? [`${root}/${m.prompt}`] : [])) : []),
  };
}

const unionClaims = (...claims: ComponentClaims[]): ComponentClaims => ({
  toolFiles: new Set(claims.flatMap((c) => [...c.toolFiles])),
  memberPrompts: new Set(claims.flatMap((c) => [...c.memberPrompts])),
});

/** A string property a wrapper module writes out (`name: '…'`), read without running it. */
export function writtenProperty(source: string, key: string): string | null {
  return new RegExp(`\\b${key}:\\s*(['"\`])((?:\\\\.|(?!\\1).)*)\\1`).exec(source)?.[2] ?? null;
}

/** The partials a template names (`{{> name}}`). */
const partialsNamed = (source: string): string[] => [...source.matchAll(/\{\{~?#?>\s*([\w./-]+)/g)].map((m) => m[1] as string);

const slug = (line: string): string =>
  line
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
    .filter((t) => t !== '')
    .map((t) => {
      const base = slug((t.split('\n')[0] ?? '').replace(/^#+ /, ''));
      const seen = (used.get(base) ?? 0) + 1;
      used.set(base, seen);
      return { name: seen === 1 ? base : `${base}-${seen}`, text: t };
    });
}

/** For each partial (by its name), the agents whose prompt includes it, directly or through another partial. */
function partialUsers(templates: ReadonlyMap<string, string>, prompts: ReadonlyArray<readonly [string, string]>): Map<string, Set<string>> {
  const users = new Map<string, Set<string>>();
  for (const [agent, name] of prompts) {
    const seen = new Set<string>();
    const queue = partialsNamed(templates.get(name) ?? '');
    while (queue.length > 0) {
      const partial = queue.shift() as string;
      if (seen.has(partial) || !templates.has(partial)) continue;
      seen.add(partial);
      users.set(partial, (users.get(partial) ?? new Set()).add(agent));
      queue.push(...partialsNamed(templates.get(partial) ?? ''));
    }
  }
  return users;
}

/**
 * The components of one version of a blueprint, in a stable order: the agent or orchestrator,
 * the members (in the manifest's order, then any named only by traces), the wrappers, the
 * partials and the main prompt's sections.
 */
export function blueprintComponents(
  files: readonly BlueprintFile[],
  root: string,
  options: { readonly traceMembers?: readonly string[]; readonly claims?: ComponentClaims } = {},
): BlueprintComponent[] {
  const byPath = new Map(files.map((f) => [f.path, f.content]));
  const { manifest, runtime } = manifestOf(byPath, root);
  const claims = unionClaims(claimsOf(files, root), options.claims ?? NO_CLAIMS);
  const manifestFile = `${root}/blueprint.json`;
  const { $schema: _editorHint, ...settings } = manifest;
  const mainPrompt = mainPromptOf(manifest, runtime);
  const mainPromptFile = mainPrompt === null ? null : `${root}/${mainPrompt}`;
  const inRoot = [...byPath.keys()].filter((p) => p.startsWith(`${root}/`)).sort();
  const isTemplate = (p: string): boolean => p.endsWith('.hbs');
  const components: BlueprintComponent[] = [];

  if (runtime === 'crew') {
    const { members, ...crew } = settings;
    // The members' order is the orchestrator's: it lists them to its model in that order, so a reordering is a change of the orchestrator (each member's own entry is unchanged).
    const order = Array.isArray(members) ? members.map((m: unknown) => (m && typeof m === 'object' ? (m as { name?: unknown }).name : null)) : [];
    components.push({ id: 'orchestrator', kind: 'orchestrator', name: ORCHESTRATOR, path: manifestFile, files: [manifestFile], description: '', signature: JSON.stringify({ ...crew, memberOrder: order }) });
  } else {
    // A command agent's program is every file of its folder that is no template.
    const program = runtime === 'command' ? inRoot.filter((p) => p !== manifestFile && !isTemplate(p)) : [];
    const signature = [JSON.stringify(settings), ...program.map((p) => `${p}\u0000${byPath.get(p) ?? ''}`)].join('\u0001');
    components.push({ id: 'agent', kind: 'agent', name: MAIN_AGENT, path: manifestFile, files: [manifestFile, ...program], description: text(manifest.description, ''), signature });
  }

  const members = runtime === 'crew' ? membersOf(manifest) : [];
  for (const member of members) {
    const name = member.name as string;
    const prompt = typeof member.prompt === 'string' ? `${root}/${member.prompt}` : null;
    const promptText = prompt === null ? undefined : byPath.get(prompt);
    components.push({
      id: `member:${name}`,
      kind: 'member',
      name,
      path: prompt,
      files: prompt === null ? [manifestFile] : [manifestFile, prompt],
      description: text(member.description, ''),
      signature: `${JSON.stringify(member)}\u0000${promptText ?? '\u0000absent'}`,
    });
  }
  const known = new Set([...members.map((m) => m.name as string), ORCHESTRATOR]);
  for (const name of [...new Set(options.traceMembers ?? [])].filter((n) => !known.has(n)).sort()) {
    components.push({ id: `member:${name}`, kind: 'member', name, path: null, files: [], description: '', signature: name });
  }

  const seenTools = new Set<string>();
  for (const file of [...claims.toolFiles].sort()) {
    const source = byPath.get(file);
    if (source === undefined) continue;
    const name = writtenProperty(source, 'name') ?? (file.split('/').at(-1) ?? file).replace(/\.[cm]?[jt]s$/, '');
    if (seenTools.has(name)) continue;
    seenTools.add(name);
    components.push({ id: `tool:${name}`, kind: 'tool', name, path: file, files: [file], description: writtenProperty(source, 'description') ?? '', signature: source });
  }

  const templateName = (p: string): string => p.slice(root.length + 1).replace(/\.hbs$/, '');
  const templates = new Map(inRoot.filter(isTemplate).map((p) => [templateName(p), byPath.get(p) ?? '']));
  const agentPrompts: Array<readonly [string, string]> = [
    ...(mainPromptFile === null ? [] : [[MAIN_AGENT, templateName(mainPromptFile)] as const]),
    ...members.flatMap((m) => (typeof m.prompt === 'string' ? [[m.name as string, templateName(`${root}/${m.prompt}`)] as const] : [])),
  ];
  const users = partialUsers(templates, agentPrompts);
  for (const file of inRoot.filter((p) => isTemplate(p) && p !== mainPromptFile && !claims.memberPrompts.has(p))) {
    const name = templateName(file);
    const content = byPath.get(file) ?? '';
    components.push({ id: `partial:${name}`, kind: 'partial', name, path: file, files: [file], description: '', includedBy: [...(users.get(name) ?? [])], signature: content });
  }

  const prompt = mainPromptFile === null ? undefined : byPath.get(mainPromptFile);
  if (prompt !== undefined && mainPromptFile !== null) {
    for (const section of promptSections(prompt)) {
      components.push({ id: `section:${section.name}`, kind: 'section', name: section.name, path: mainPromptFile, files: [mainPromptFile], description: '', text: section.text, signature: section.text });
    }
  }
  return components;
}

/**
 * Whether one component is a part of another: the main prompt's sections are parts of the
 * agent (or the orchestrator) whose prompt it is, so an edit that rewrites the prompt as a whole
 * names the agent, and may change any of its sections.
 */
export function isPartOf(part: string, whole: string): boolean {
  return part.startsWith('section:') && (whole === 'agent' || whole === 'orchestrator');
}

/** A blueprint's files with edits applied (a null content deletes the file). */
export function withEdits(files: readonly BlueprintFile[], edits: readonly FileEdit[]): BlueprintFile[] {
  const byPath = new Map(files.map((f) => [f.path, f.content]));
  for (const edit of edits) {
    if (edit.content === null) byPath.delete(edit.path);
    else byPath.set(edit.path, edit.content);
  }
  return [...byPath].map(([path, content]) => ({ path, content }));
}

const signaturesOf = (files: readonly BlueprintFile[], root: string, claims: ComponentClaims): Map<string, string> =>
  new Map(blueprintComponents(files, root, { claims }).map((c) => [c.id, c.signature]));

/**
 * Whether two versions of the orchestrator are the same: the same settings, and the members both
 * versions hold in the same order. Adding or removing a member shifts the others' places without
 * reordering them: that is a change of the member, not of the orchestrator.
 */
function sameOrchestrator(a: string, b: string): boolean {
  const parse = (signature: string) => {
    const { memberOrder, ...settings } = JSON.parse(signature) as { memberOrder?: unknown[] };
    return { settings: JSON.stringify(settings), order: Array.isArray(memberOrder) ? memberOrder : [] };
  };
  const [left, right] = [parse(a), parse(b)];
  if (left.settings !== right.settings) return false;
  const common = (order: unknown[], other: unknown[]) => order.filter((name) => other.includes(name));
  return JSON.stringify(common(left.order, right.order)) === JSON.stringify(common(right.order, left.order));
}

const sameComponent = (id: string, a: string | undefined, b: string | undefined): boolean =>
  a === b || (id === 'orchestrator' && a !== undefined && b !== undefined && sameOrchestrator(a, b));

const differing = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): string[] => [...new Set([...a.keys(), ...b.keys()])].filter((id) => !sameComponent(id, a.get(id), b.get(id))).sort();

/** The components whose signature differs between two versions, or that exist in only one. */
export function changedComponents(before: readonly BlueprintFile[], after: readonly BlueprintFile[], root: string): string[] {
  const claims = unionClaims(claimsOf(before, root), claimsOf(after, root));
  return differing(signaturesOf(before, root, claims), signaturesOf(after, root, claims));
}

/** What an RC's edits do, component by component: each edit applied alone, and all of them. */
export interface EditEffects {
  /** Per edit (in order): the components it changes when applied alone to the blueprint before the RC. */
  readonly alone: readonly string[][];
  readonly before: ReadonlyMap<string, string>;
  readonly after: ReadonlyMap<string, string>;
}

export function editEffects(files: readonly BlueprintFile[], edits: readonly FileEdit[], root: string): EditEffects {
  const all = withEdits(files, edits);
  const claims = unionClaims(claimsOf(files, root), claimsOf(all, root));
  const before = signaturesOf(files, root, claims);
  return {
    alone: edits.map((edit) => differing(before, signaturesOf(withEdits(files, [edit]), root, claims))),
    before,
    after: signaturesOf(all, root, claims),
  };
}

/** The type an RC's change of a component has: it appears (add), disappears (remove), or stays and changes (revise). */
export function changeType(effects: Pick<EditEffects, 'before' | 'after'>, component: string): EditType {
  if (!effects.before.has(component)) return 'add';
  return effects.after.has(component) ? 'revise' : 'remove';
}

/**
 * The typed changes of a change whose edits were not typed (a person's branch, a legacy RC),
 * inferred from what it does: one per component it changes, with the edited files that change
 * it alone (every edited file when none does by itself, as with a shared helper module).
 */
export function inferTypedChanges(files: readonly BlueprintFile[], edits: readonly FileEdit[], root: string): TypedChange[] {
  const effects = editEffects(files, edits, root);
  return differing(effects.before, effects.after).map((component) => {
    const paths = edits.filter((_, i) => effects.alone[i]?.includes(component)).map((e) => e.path);
    return { type: changeType(effects, component), component, paths: paths.length > 0 ? paths : edits.map((e) => e.path) };
  });
}
