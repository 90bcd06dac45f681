import { describe, expect, it } from 'vitest';
import { linksLeaving, type TreeLink } from '../../src/domain/blueprint-links.ts';

const folder = 'blueprints/bp';
const link = (path: string, target: string): TreeLink => ({ path: `${folder}/${path}`, target });

describe('links that leave the blueprint folder', () => {
  it.each<[string, TreeLink[], string[]]>([
    ['a link to a file beside it', [link('a.hbs', 'b.hbs')], []],
    ['a link into a subfolder', [link('a.hbs', 'partials/x.hbs')], []],
    ['a link to the folder itself', [link('self', '.')], []],
    ['a folder link into the task', [link('tools-out', '../../rubrics')], ['tools-out']],
    ['a partial linked to the test split', [link('leak.hbs', '../../rubrics/orders/test.jsonl')], ['leak.hbs']],
    ['an absolute link', [link('abs', '/etc/passwd')], ['abs']],
    ['a link that steps out and back in', [link('back', '../bp/system.hbs')], ['back']],
    ['a link from a subfolder up to the folder, and no further', [link('sub/up', '../system.hbs')], []],
    ['a chain that leaves through another link', [link('a', 'b/..'), link('b', '.')], ['a']],
    ['a chain through a link to a subfolder', [link('a', 'b/../x'), link('b', 'sub/deep')], []],
    ['a loop', [link('a', 'b'), link('b', 'a')], ['a', 'b']],
  ])('%s', (_name, links, leaving) => {
    expect(linksLeaving(links, folder).map((l) => l.path.slice(folder.length + 1))).toEqual(leaving);
  });
});
