import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blueprintComponents, inferTypedChanges } from '../../src/domain/blueprint-components.ts';
import type { FileEdit } from '../../src/domain/release-candidate.ts';
import { typedEditProblems } from '../../src/stages/synthesize/typed-edits.ts';
import { repoRoot } from '../helpers/workspace.ts';

const root = 'blueprints/bp';
const manifest = (tools: string[]) => JSON.stringify({ runtime: 'tool-loop', prompt: 'system.hbs', tools, maxSteps: 5 });
const tool = (name: string) => `export default { name: '${name}', run: () => 1 };\n`;
const files = [
  { path: `${root}/blueprint.json`, content: manifest(['tools/a.ts', 'tools/b.ts']) },
  { path: `${root}/system.hbs`, content: 'You are a helper.\n\nAlways be brief.\n' },
  { path: `${root}/tools/a.ts`, content: tool('a') },
  { path: `${root}/tools/b.ts`, content: tool('b') },
];
const typed = (path: string, content: string | null, type: 'remove' | 'revise' | 'add', component: string): FileEdit => ({ path, content, type, component });

describe('the scope check of typed edits', () => {
  it('remove: takes its component out; an edit that also changes another is refused, naming both', () => {
    const ok = [typed(`${root}/tools/b.ts`, null, 'remove', 'tool:b'), typed(`${root}/blueprint.json`, manifest(['tools/a.ts']), 'revise', 'agent')];
    expect(typedEditProblems(files, ok, root)).toEqual([]);
    // Typed "remove tool:b", the manifest edit strips the agent's whole tool list.
    const wide = [typed(`${root}/tools/b.ts`, null, 'remove', 'tool:b'), typed(`${root}/blueprint.json`, manifest([]), 'remove', 'tool:b')];
    expect(typedEditProblems(files, wide, root)).toEqual([expect.stringMatching(/^remove tool:b \(blueprints\/bp\/blueprint.json\) also changes agent: /)]);
  });

  it('revise: changes only its own section, and must change it', () => {
    const ok = [typed(`${root}/system.hbs`, 'You are a helper.\n\nAlways be brief and polite.\n', 'revise', 'section:always-be-brief')];
    expect(typedEditProblems(files, ok, root)).toEqual([]);
    const wide = [typed(`${root}/system.hbs`, 'You are a careful helper.\n\nAlways be brief and polite.\n', 'revise', 'section:always-be-brief')];
    expect(typedEditProblems(files, wide, root)).toEqual([expect.stringMatching(/^revise section:always-be-brief \(blueprints\/bp\/system.hbs\) also changes section:you-are-a: /)]);
    // A revise that leaves its component as it was (here it edits another one's file, not itself).
    const idle = [typed(`${root}/tools/a.ts`, `${tool('a')}// touched\n`, 'revise', 'tool:b')];
    expect(typedEditProblems(files, idle, root)).toEqual([
      expect.stringMatching(/^revise tool:b \(blueprints\/bp\/tools\/a.ts\) also changes tool:a: /),
      'revise tool:b (blueprints/bp/tools/a.ts): the edits do not change it (a revise must change the component it names)',
    ]);
    expect(typedEditProblems(files, [typed(`${root}/system.hbs`, files[1]?.content ?? '', 'revise', 'section:you-are-a')], root)).toEqual([
      'revise section:you-are-a (blueprints/bp/system.hbs): the edits do not change it (a revise must change the component it names)',
    ]);
  });

  it('revise agent: a rewrite of the whole prompt names the agent, whose sections are its parts', () => {
    const rewrite = [typed(`${root}/system.hbs`, 'You are a careful helper.\n\nNever guess.\n', 'revise', 'agent')];
    expect(typedEditProblems(files, rewrite, root)).toEqual([]);
    const idle = [typed(`${root}/system.hbs`, files[1]?.content ?? '', 'revise', 'agent')];
    expect(typedEditProblems(files, idle, root)).toEqual(['revise agent (blueprints/bp/system.hbs): the edits do not change it (a revise must change the component it names)']);
  });

  it('add: creates its component and nothing else; giving the agent the tool is a revise of the agent', () => {
    const ok = [typed(`${root}/tools/c.ts`, tool('c'), 'add', 'tool:c'), typed(`${root}/blueprint.json`, manifest(['tools/a.ts', 'tools/b.ts', 'tools/c.ts']), 'revise', 'agent')];
    expect(typedEditProblems(files, ok, root)).toEqual([]);
    const wide = [typed(`${root}/tools/c.ts`, tool('c'), 'add', 'tool:c'), typed(`${root}/blueprint.json`, manifest(['tools/a.ts', 'tools/c.ts']), 'add', 'tool:c')];
    expect(typedEditProblems(files, wide, root)[0]).toMatch(/^add tool:c \(blueprints\/bp\/blueprint.json\) also changes agent/);
    // An add of something that exists is a revise.
    expect(typedEditProblems(files, [typed(`${root}/tools/a.ts`, `${tool('a')}//x\n`, 'add', 'tool:a')], root)).toEqual(['add tool:a: it exists already (revise it instead)']);
  });

  it('refuses an untyped edit', () => {
    expect(typedEditProblems(files, [{ path: `${root}/system.hbs`, content: 'You are a helper.\n' }], root)).toEqual([
      'blueprints/bp/system.hbs: an untyped edit: every edit gives its "type" (remove, revise or add) and the "component" it changes',
    ]);
  });
});

describe('the component model of a crew', () => {
  const crewRoot = 'blueprints/orders-crew';
  const example = `${repoRoot}examples/orders-crew/${crewRoot}`;
  const read = (file: string) => ({ path: `${crewRoot}/${file}`, content: readFileSync(`${example}/${file}`, 'utf8') });
  const crew = ['blueprint.json', 'system.hbs', 'members/lookup.hbs', 'members/refunds.hbs', 'members/delivery-notes.hbs', 'partials/answer-format.hbs', 'tools/get_order.ts', 'tools/find_customer.ts', 'tools/list_orders.ts', 'tools/cancel_order.ts', 'tools/return_items.ts'].map(read);
  const crewManifest = JSON.parse(crew[0]?.content ?? '{}') as { members: Array<{ name: string; tools: string[]; sees: string[] }> };

  it('has the orchestrator, each member (manifest entry and prompt), the wrappers, the partials and the sections', () => {
    const components = blueprintComponents(crew, crewRoot);
    const ids = components.map((c) => c.id);
    expect(ids.slice(0, 4)).toEqual(['orchestrator', 'member:lookup', 'member:refunds', 'member:delivery-notes']);
    expect(ids).toEqual(expect.arrayContaining(['tool:get_order', 'tool:find_customer', 'tool:list_orders', 'tool:cancel_order', 'tool:return_items', 'partial:partials/answer-format', 'section:you-are-the']));
    // A member's prompt is the member's, not a partial; nobody is called "member:orchestrator".
    expect(ids.filter((id) => id.startsWith('partial:'))).toEqual(['partial:partials/answer-format']);
    expect(ids).not.toContain('member:orchestrator');
    expect(components.find((c) => c.id === 'member:lookup')?.files).toEqual([`${crewRoot}/blueprint.json`, `${crewRoot}/members/lookup.hbs`]);
    expect(components.find((c) => c.id === 'partial:partials/answer-format')?.includedBy).toEqual(expect.arrayContaining(['lookup']));
  });

  it('refuses a "revise section" edit that changes a member\'s tools and view in blueprint.json, naming both', () => {
    const stripped = { ...crewManifest, members: crewManifest.members.map((m) => (m.name === 'lookup' ? { ...m, tools: [], sees: ['request'] } : m)) };
    const prompt = crew[1]?.content ?? '';
    const edits = [
      typed(`${crewRoot}/system.hbs`, prompt.replace('ask for the email address', 'ask for the e-mail address'), 'revise', 'section:always-verify-the'),
      typed(`${crewRoot}/blueprint.json`, `${JSON.stringify(stripped, null, 2)}\n`, 'revise', 'section:always-verify-the'),
    ];
    expect(typedEditProblems(crew, edits, crewRoot)).toEqual([
      'revise section:always-verify-the (blueprints/orders-crew/blueprint.json) also changes member:lookup: an edit may change only the component it names',
    ]);
    // Typed as what it is, the same change passes; a member's budget is the member's too.
    const budget = { ...crewManifest, members: crewManifest.members.map((m) => (m.name === 'refunds' ? { ...m, maxSteps: 9 } : m)) };
    expect(typedEditProblems(crew, [typed(`${crewRoot}/blueprint.json`, JSON.stringify(stripped), 'revise', 'member:lookup')], crewRoot)).toEqual([]);
    expect(inferTypedChanges(crew, [{ path: `${crewRoot}/blueprint.json`, content: JSON.stringify(budget) }], crewRoot)).toEqual([{ type: 'revise', component: 'member:refunds', paths: [`${crewRoot}/blueprint.json`] }]);
    // Removing a member: its entry and its prompt file, both typed remove.
    const without = { ...crewManifest, members: crewManifest.members.filter((m) => m.name !== 'delivery-notes') };
    const removal = [typed(`${crewRoot}/blueprint.json`, JSON.stringify(without), 'remove', 'member:delivery-notes'), typed(`${crewRoot}/members/delivery-notes.hbs`, null, 'remove', 'member:delivery-notes')];
    expect(typedEditProblems(crew, removal, crewRoot)).toEqual([]);
  });
});
