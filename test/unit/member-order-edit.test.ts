import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { changedComponents, inferTypedChanges } from '../../src/domain/blueprint-components.ts';
import { repoRoot } from '../helpers/workspace.ts';

const root = 'blueprints/orders-crew';
const manifest = JSON.parse(readFileSync(`${repoRoot}examples/orders-crew/${root}/blueprint.json`, 'utf8')) as { members: unknown[] };

describe('a reordering of a crew’s members', () => {
  it('is a change of the orchestrator, recorded among the typed edits', () => {
    const before = [{ path: `${root}/blueprint.json`, content: JSON.stringify(manifest, null, 2) }];
    const reordered = JSON.stringify({ ...manifest, members: [...manifest.members].reverse() }, null, 2);
    const after = [{ path: `${root}/blueprint.json`, content: reordered }];
    expect(changedComponents(before, after, root)).toEqual(['orchestrator']);
    expect(inferTypedChanges(before, [{ path: `${root}/blueprint.json`, content: reordered }], root)).toEqual([{ type: 'revise', component: 'orchestrator', paths: [`${root}/blueprint.json`] }]);
    // The same order, written again, changes nothing.
    expect(changedComponents(before, [{ path: `${root}/blueprint.json`, content: JSON.stringify(manifest) }], root)).toEqual([]);
  });
});
