import { describe, expect, it } from 'vitest';
import { typedEditProblems } from '../../src/stages/synthesize/typed-edits.ts';

const root = 'blueprints/bp';
const manifest = (tools: string[]) => JSON.stringify({ prompt: 'system.hbs', tools });
const tool = (name: string) => `export default { name: '${name}', run: () => 1 };\n`;
const files = [
  { path: `${root}/blueprint.json`, content: manifest(['tools/a.ts', 'tools/b.ts']) },
  { path: `${root}/system.hbs`, content: 'You are a helper.\n\nAlways be brief.\n' },
  { path: `${root}/tools/a.ts`, content: tool('a') },
  { path: `${root}/tools/b.ts`, content: tool('b') },
];

describe('the scope check of typed edits', () => {
  it('remove: takes its component out; an edit that also changes another is refused, naming both', () => {
    const ok = [
      { path: `${root}/blueprint.json`, content: manifest(['tools/a.ts']), type: 'remove' as const, component: 'tool:b' },
      { path: `${root}/tools/b.ts`, content: null, type: 'remove' as const, component: 'tool:b' },
    ];
    expect(typedEditProblems(files, ok, root)).toEqual([]);
    const wide = [{ path: `${root}/blueprint.json`, content: manifest([]), type: 'remove' as const, component: 'tool:b' }];
    expect(typedEditProblems(files, wide, root)).toEqual([expect.stringMatching(/^remove tool:b \(blueprints\/bp\/blueprint.json\) also changes tool:a: /)]);
  });

  it('revise: changes only its own section; touching a second section is refused, naming both', () => {
    const ok = [{ path: `${root}/system.hbs`, content: 'You are a helper.\n\nAlways be brief and polite.\n', type: 'revise' as const, component: 'section:always-be-brief' }];
    expect(typedEditProblems(files, ok, root)).toEqual([]);
    const wide = [{ path: `${root}/system.hbs`, content: 'You are a careful helper.\n\nAlways be brief and polite.\n', type: 'revise' as const, component: 'section:always-be-brief' }];
    const problems = typedEditProblems(files, wide, root);
    expect(problems).toEqual([expect.stringMatching(/^revise section:always-be-brief \(blueprints\/bp\/system.hbs\) also changes section:you-are-a: /)]);
  });

  it('add: creates its component and nothing else; adding while revising another tool is refused, naming both', () => {
    const ok = [
      { path: `${root}/tools/c.ts`, content: tool('c'), type: 'add' as const, component: 'tool:c' },
      { path: `${root}/blueprint.json`, content: manifest(['tools/a.ts', 'tools/b.ts', 'tools/c.ts']), type: 'add' as const, component: 'tool:c' },
    ];
    expect(typedEditProblems(files, ok, root)).toEqual([]);
    const wide = [{ path: `${root}/blueprint.json`, content: manifest(['tools/a.ts', 'tools/c.ts']), type: 'add' as const, component: 'tool:c' }];
    expect(typedEditProblems(files, [...wide, { path: `${root}/tools/c.ts`, content: tool('c'), type: 'add' as const, component: 'tool:c' }], root)[0]).toMatch(/^add tool:c \(blueprints\/bp\/blueprint.json\) also changes tool:b/);
    // An add of something that exists is a revise.
    expect(typedEditProblems(files, [{ path: `${root}/tools/a.ts`, content: tool('a') + '//x\n', type: 'add' as const, component: 'tool:a' }], root)).toEqual(['add tool:a: it exists already (revise it instead)']);
  });
});
