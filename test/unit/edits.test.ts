import { describe, expect, it } from 'vitest';
import { editProblems, editsFingerprint, outsideBlueprint } from '../../src/stages/synthesize/edits.ts';

describe('RC edits', () => {
  it('accepts edits inside the blueprint folder', () => {
    expect(editProblems([{ path: 'blueprints/bp/system.hbs', content: 'x' }, { path: 'blueprints/bp/tools/a.ts', content: null }], 'bp')).toEqual([]);
  });

  it.each([
    'rubrics/orders/train.jsonl',
    'blueprints/other/system.hbs',
    'blueprints/bp/../../rubrics/orders/rubric.md',
    '/etc/passwd',
    'blueprints\\bp\\x.ts',
    'agentdevel.config.json',
    'blueprints/bpx/system.hbs',
  ])('refuses an edit of %s', (file) => {
    expect(editProblems([{ path: file, content: 'x' }], 'bp')[0]).toMatch(/outside blueprints\/bp\//);
    expect(outsideBlueprint([file], 'bp')).toEqual([file]);
  });

  it('refuses deleting the manifest and editing a file twice', () => {
    expect(editProblems([{ path: 'blueprints/bp/blueprint.json', content: null }], 'bp')[0]).toMatch(/cannot be deleted/);
    expect(editProblems([{ path: 'blueprints/bp/a', content: '1' }, { path: 'blueprints/bp/a', content: '2' }], 'bp')[0]).toMatch(/twice/);
  });

  it('fingerprints edits independently of their order', () => {
    const a = { path: 'blueprints/bp/a', content: '1' };
    const b = { path: 'blueprints/bp/b', content: null };
    expect(editsFingerprint([a, b])).toBe(editsFingerprint([b, a]));
    expect(editsFingerprint([a])).not.toBe(editsFingerprint([{ ...a, content: '2' }]));
  });
});
